package dev.turnstile.spring.internal.aop;

import kotlin.coroutines.Continuation;
import kotlin.coroutines.CoroutineContext;

/**
 * The caller's continuation with a {@link CoroutineGuard} added to its context: passed on as a
 * guarded {@code suspend} function's last argument, it is where Spring AOP takes the context of
 * the coroutine it starts for the function (Spring Framework 6.1+); a result goes to the caller.
 */
final class GuardedContinuation implements Continuation<Object> {

    private final Continuation<Object> caller;
    private final CoroutineContext context;

    GuardedContinuation(Continuation<Object> caller, CoroutineGuard guard) {
        this.caller = caller;
        this.context = caller.getContext().plus(guard);
    }

    @Override
    public CoroutineContext getContext() {
        return this.context;
    }

    @Override
    public void resumeWith(Object result) {
        this.caller.resumeWith(result);
    }
}
