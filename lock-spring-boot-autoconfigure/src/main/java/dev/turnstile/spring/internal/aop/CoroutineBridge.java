package dev.turnstile.spring.internal.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.core.KotlinDetector;
import org.springframework.util.ClassUtils;

/**
 * What guarding a Kotlin coroutine needs on the class path, checked at startup: without
 * kotlinx-coroutines-reactor, Spring AOP calls a {@code suspend} function as a plain method that
 * returns at its first suspension, and a guard around it would be released before the body ran.
 * Such a guard fails the start rather than run unguarded.
 */
final class CoroutineBridge {

    private final boolean reactor;
    private final boolean coroutinesReactor;
    private final boolean kotlinReflect;

    CoroutineBridge(@Nullable ClassLoader classLoader) {
        this.reactor = ClassUtils.isPresent("reactor.core.publisher.Mono", classLoader);
        this.coroutinesReactor = ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", classLoader);
        this.kotlinReflect = ClassUtils.isPresent("kotlin.reflect.full.KClasses", classLoader);
    }

    /** Returns the problem of guarding {@code method}, a coroutine or flow, if it cannot be guarded. */
    Optional<String> check(Method method) {
        List<String> missing = new ArrayList<>();
        if (!this.coroutinesReactor) {
            missing.add("org.jetbrains.kotlinx:kotlinx-coroutines-reactor");
        }
        if (!this.reactor) {
            missing.add("io.projectreactor:reactor-core");
        }
        if (!this.kotlinReflect) {
            missing.add("org.jetbrains.kotlin:kotlin-reflect");
        }
        if (missing.isEmpty()) {
            return Optional.empty();
        }
        String what =
                KotlinDetector.isSuspendingFunction(method) ? "is a Kotlin suspend function" : "returns a Kotlin Flow";
        String names = String.join(" and ", missing);
        return Optional.of(what + ", and " + names + (missing.size() == 1 ? " is" : " are")
                + " not on the class path: without " + (missing.size() == 1 ? "it" : "them")
                + " Spring AOP cannot hand the coroutine to the guard, which would be released before the body"
                + " runs; add " + names + " to the application's dependencies");
    }
}
