package dev.turnstile.redis;

import java.time.Duration;

/**
 * What a {@link LeaseListener} hears.
 *
 * @param kind a lock or a semaphore permit
 * @param name the lock or semaphore name
 * @param fencingToken the lost lease's fencing token
 * @param reason how the lease was lost
 * @param overdue how long past the lease's local deadline the loss was detected (zero if before)
 */
public record LeaseLostEvent(LeaseKind kind, String name, long fencingToken, Reason reason, Duration overdue) {

    /** How a lease was lost. */
    public enum Reason {
        /** A fixed lease time ran out before the owner released. */
        LEASE_ELAPSED,
        /**
         * The grant was no longer this owner's in Redis when renewed, extended or released (expired,
         * or force-released by an operator).
         */
        EXPIRED_IN_REDIS,
        /** Another owner held the name when this owner renewed or extended. */
        TAKEN_OVER,
        /**
         * The watchdog could not renew the lease before its deadline: Redis was unreachable, or this
         * process stalled (a long GC pause, a frozen VM).
         */
        RENEWAL_MISSED
    }
}
