package dev.turnstile.spring.internal.aop;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.LockFactory;
import dev.turnstile.redis.SemaphoreFullException;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.TurnstileException;
import dev.turnstile.redis.semaphore.RedisSemaphore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One call's guard: the operation with its keys (and limit) resolved for this call.
 *
 * @param operation the method's operation
 * @param keys the resolved keys (one for a semaphore)
 * @param limit the resolved limit of a semaphore; 0 for a lock
 */
record Guard(GuardOperation operation, List<String> keys, int limit) {

    Optional<? extends Lease> tryAcquire(Turnstile turnstile, LockFactory locks) {
        GuardOperation op = this.operation;
        if (op.spec() instanceof SemaphoreSpec spec) {
            RedisSemaphore semaphore = turnstile.semaphore(this.keys.get(0), this.limit);
            return (spec.fair() ? semaphore.fair() : semaphore).tryAcquire(op.waitTime(), op.leaseTime());
        }
        return locks.lock(this.keys).tryAcquire(op.waitTime(), op.leaseTime());
    }

    TurnstileException failure(Duration waited) {
        String name = String.join(",", this.keys);
        return this.operation.kind() == LeaseKind.LOCK
                ? LockAcquisitionException.of(name, waited)
                : SemaphoreFullException.of(name, this.limit, waited);
    }
}
