package dev.turnstile.spring.internal.aop;

import dev.turnstile.redis.LeaseKind;
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
    public LeaseKind kind() {
        return LeaseKind.SEMAPHORE;
    }
}
