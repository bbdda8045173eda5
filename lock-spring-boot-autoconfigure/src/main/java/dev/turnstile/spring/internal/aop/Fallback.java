package dev.turnstile.spring.internal.aop;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ReflectionUtils;

/**
 * The method called instead of a guarded one that was refused.
 *
 * @param method the fallback, on the same bean
 * @param takesFailure whether it takes the refusal as its last argument (before a continuation)
 * @param guardedSuspends whether the guarded method is a Kotlin {@code suspend} function: its last
 *     argument is the caller's continuation
 * @param suspends whether the fallback is a Kotlin {@code suspend} function, called as a coroutine
 *     in the caller's context
 */
record Fallback(Method method, boolean takesFailure, boolean guardedSuspends, boolean suspends) {

    /**
     * Calls the fallback with the guarded method's arguments; throws what it throws. A {@code
     * suspend} fallback returns its coroutine as a {@code Mono} (a {@code Flux} for a {@code Flow}).
     */
    @Nullable
    Object call(Object target, Object[] args, Throwable failure) throws Throwable {
        Object[] values = this.guardedSuspends ? Arrays.copyOf(args, args.length - 1) : args;
        Object[] fallbackArgs = values;
        if (this.takesFailure) {
            fallbackArgs = Arrays.copyOf(values, values.length + 1);
            fallbackArgs[values.length] = failure;
        }
        if (this.suspends) {
            Object[] withContinuation = Arrays.copyOf(fallbackArgs, fallbackArgs.length + 1);
            withContinuation[fallbackArgs.length] = args[args.length - 1];
            return CoroutineGuards.callSuspending(this.method, target, withContinuation);
        }
        ReflectionUtils.makeAccessible(this.method);
        try {
            return this.method.invoke(target, fallbackArgs);
        } catch (InvocationTargetException e) {
            throw e.getTargetException();
        }
    }
}
