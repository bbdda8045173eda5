package dev.turnstile.spring.internal.aop;

import org.jspecify.annotations.Nullable;

/** Calls the guarded method (the rest of the interceptor chain). */
@FunctionalInterface
public interface Invoker {

    /** Invokes the method and returns its result. */
    @Nullable
    Object invoke() throws Throwable;
}
