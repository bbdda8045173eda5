package dev.turnstile.spring.aop;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ReflectionUtils;

/**
 * The method called instead of a guarded one that was refused.
 *
 * @param method the fallback, on the same bean
 * @param takesFailure whether it takes the refusal as its last argument
 */
record Fallback(Method method, boolean takesFailure) {

    /** Calls the fallback with the guarded method's arguments; throws what it throws. */
    @Nullable
    Object call(Object target, Object[] args, Throwable failure) throws Throwable {
        Object[] fallbackArgs = args;
        if (this.takesFailure) {
            fallbackArgs = Arrays.copyOf(args, args.length + 1);
            fallbackArgs[args.length] = failure;
        }
        ReflectionUtils.makeAccessible(this.method);
        try {
            return this.method.invoke(target, fallbackArgs);
        } catch (InvocationTargetException e) {
            throw e.getTargetException();
        }
    }
}
