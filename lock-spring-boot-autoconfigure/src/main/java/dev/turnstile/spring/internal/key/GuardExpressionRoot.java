package dev.turnstile.spring.internal.key;

import java.lang.reflect.Method;

/**
 * The {@code #root} of key, condition and limit expressions.
 *
 * @param method the annotated method ({@code #root.method})
 * @param args the call's arguments ({@code #root.args})
 * @param target the bean ({@code #root.target})
 * @param targetClass the bean's class ({@code #root.targetClass})
 */
public record GuardExpressionRoot(Method method, Object[] args, Object target, Class<?> targetClass) {

    /** Returns the method's name ({@code #root.methodName}). */
    public String methodName() {
        return this.method.getName();
    }
}
