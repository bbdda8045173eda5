package dev.turnstile.spring.internal.aop;

import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.reflect.MethodSignature;
import org.springframework.core.Ordered;

/**
 * Runs {@code @DistributedLock} and {@code @Semaphore} methods under their guards; the work is in
 * {@link GuardOperationSupport}, which holds no AOP types.
 */
@Aspect
public final class GuardAspect implements Ordered {

    private final GuardOperationSupport support;
    private final int order;

    /** Creates the aspect at {@code order}: it must run outside (before) transaction advice. */
    public GuardAspect(GuardOperationSupport support, int order) {
        this.support = support;
        this.order = order;
    }

    /** Guards one call. */
    @Around("@annotation(dev.turnstile.annotation.DistributedLock) || @annotation(dev.turnstile.annotation.Semaphore)")
    public Object around(ProceedingJoinPoint call) throws Throwable {
        MethodSignature signature = (MethodSignature) call.getSignature();
        // One array for the support and the call: the support replaces a suspend function's
        // continuation in it before proceeding, to carry the guard into the coroutine.
        Object[] args = call.getArgs();
        return this.support.invoke(signature.getMethod(), call.getTarget(), args, () -> call.proceed(args));
    }

    @Override
    public int getOrder() {
        return this.order;
    }
}
