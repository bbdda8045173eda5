package dev.turnstile.spring.aop;

import org.jspecify.annotations.Nullable;

/**
 * What only a {@code @Semaphore} has.
 *
 * @param limit the fixed limit, or 0 when {@code limitExpression} gives it per call
 * @param limitExpression the per-call limit expression, or null
 * @param fair whether waiters are served in arrival order
 */
record SemaphoreSpec(int limit, @Nullable String limitExpression, boolean fair) implements GuardSpec {

    @Override
    public GuardKind kind() {
        return GuardKind.SEMAPHORE;
    }
}
