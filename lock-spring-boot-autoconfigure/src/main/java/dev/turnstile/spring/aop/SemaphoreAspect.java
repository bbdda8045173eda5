package dev.turnstile.spring.aop;

import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.reflect.MethodSignature;
import org.springframework.core.Ordered;

/** Runs {@code @Semaphore} methods under a permit; the work is in {@link GuardOperationSupport}. */
@Aspect
public final class SemaphoreAspect implements Ordered {

    private final GuardOperationSupport support;
    private final int order;

    /** Creates the aspect at {@code order}: it must run outside (before) transaction advice. */
    public SemaphoreAspect(GuardOperationSupport support, int order) {
        this.support = support;
        this.order = order;
    }

    /** Guards one call. */
    @Around("@annotation(dev.turnstile.annotation.Semaphore)")
    public Object around(ProceedingJoinPoint call) throws Throwable {
        MethodSignature signature = (MethodSignature) call.getSignature();
        return this.support.invoke(
                GuardKind.SEMAPHORE, signature.getMethod(), call.getTarget(), call.getArgs(), call::proceed);
    }

    @Override
    public int getOrder() {
        return this.order;
    }
}
