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
         * The grant was gone from Redis (expired, evicted, or deleted by hand) when renewed, extended
         * or released; a release that finds it so reports it after the fact.
         */
        EXPIRED_IN_REDIS,
        /** Another owner held the name when this owner renewed or extended. */
        TAKEN_OVER,
        /**
         * The watchdog could not renew the lease before its deadline: Redis was unreachable, or this
         * process stalled (a long GC pause, a frozen VM).
         */
        RENEWAL_MISSED,
        /**
         * An operator released the lock from this owner ({@link NamedLock#forceRelease()}, the
         * Spring Boot starter's {@code /actuator/turnstile} endpoint), found when the owner renewed,
         * extended or released. Told apart from an expiry while what was left of the lease at the
         * forced release has not passed; later it reads as {@link #EXPIRED_IN_REDIS}.
         */
        FORCE_RELEASED;

        /**
         * Returns the reason in a few words that read after "was", for messages: {@code "released by
         * an operator"}, {@code "expired in Redis"}, {@code "held past its lease time"}.
         */
        public String description() {
            return switch (this) {
                case LEASE_ELAPSED -> "held past its lease time";
                case EXPIRED_IN_REDIS -> "expired in Redis";
                case TAKEN_OVER -> "taken over by another owner";
                case RENEWAL_MISSED -> "not renewed in time";
                case FORCE_RELEASED -> "released by an operator";
            };
        }
    }
}
