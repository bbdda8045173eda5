package dev.turnstile.spring.aop;

import java.util.concurrent.CompletionStage;
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
    FLUX;

    private static final boolean REACTOR =
            ClassUtils.isPresent("reactor.core.publisher.Mono", ReturnKind.class.getClassLoader());

    static ReturnKind of(Class<?> returnType) {
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
}
