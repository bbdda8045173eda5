package dev.turnstile.spring.internal.aop;

import java.lang.reflect.Method;
import java.util.concurrent.CompletionStage;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.util.ClassUtils;

/** How a guarded method delivers its result, which decides when the lease is released. */
enum ReturnKind {
    /** Returns when done: release in {@code finally}. */
    SYNC,
    /** A {@code CompletionStage}: release when it completes. */
    COMPLETION_STAGE,
    /** A Reactor {@code Mono}: acquire on subscribe, release on complete, error or cancel. */
    MONO,
    /** A Reactor {@code Flux}: as {@link #MONO}. */
    FLUX,
    /**
     * A Kotlin {@code suspend} function, which Spring AOP hands over as a {@code Mono}: as {@link
     * #MONO}, and released on cancellation only once the coroutine has stopped.
     */
    SUSPEND,
    /**
     * A Kotlin {@code Flow}, returned by a {@code suspend} function (handed over as a {@code Flux})
     * or a plain one: acquire when collected, release when the collection ends.
     */
    FLOW;

    private static final String FLOW_CLASS = "kotlinx.coroutines.flow.Flow";

    private static final boolean REACTOR =
            ClassUtils.isPresent("reactor.core.publisher.Mono", ReturnKind.class.getClassLoader());

    static ReturnKind of(Method method) {
        if (KotlinDetector.isSuspendingFunction(method)) {
            return FLOW_CLASS.equals(kotlinReturnType(method).getName()) ? FLOW : SUSPEND;
        }
        Class<?> returnType = method.getReturnType();
        if (FLOW_CLASS.equals(returnType.getName())) {
            return FLOW;
        }
        if (CompletionStage.class.isAssignableFrom(returnType)) {
            return COMPLETION_STAGE;
        }
        if (REACTOR && ReactiveGuards.isMono(returnType)) {
            return MONO;
        }
        if (REACTOR && ReactiveGuards.isFlux(returnType)) {
            return FLUX;
        }
        return SYNC;
    }

    /** Returns whether the method is a Kotlin coroutine or flow, guarded through the coroutine bridge. */
    boolean kotlin() {
        return this == SUSPEND || this == FLOW;
    }

    /**
     * Returns the type the method's callers get: for a {@code suspend} function, its Kotlin return
     * type ({@code Object} when it cannot be told without kotlin-reflect), not its compiled {@code
     * Object}.
     */
    static Class<?> kotlinReturnType(Method method) {
        if (!KotlinDetector.isSuspendingFunction(method)) {
            return method.getReturnType();
        }
        if (!KotlinDetector.isKotlinReflectPresent()) {
            return Object.class;
        }
        return new MethodParameter(method, -1).getParameterType();
    }
}
