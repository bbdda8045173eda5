package dev.turnstile.redis.internal;

import java.time.Duration;

/**
 * What a {@link ManagedLease} asks of the primitive that granted it: renew and release its grant
 * in Redis, owner-checked. A lock, a Redlock lock and a semaphore permit each supply one; the lease
 * decides when to call it.
 */
interface Grant {

    /** What {@link #release()} and {@link #releaseAfter} answer when a forced release took the grant. */
    long FORCED_FROM_OWNER = -2;

    /** What an owner-checked renewal found in Redis. */
    enum Renewal {
        /** The grant was ours and its time to live is now the new lease time. */
        RENEWED,
        /** The grant no longer exists. */
        GONE,
        /** Another owner holds the name. */
        TAKEN_OVER,
        /** A forced release (an operator's) took the grant from this owner. */
        FORCE_RELEASED
    }

    /**
     * Renews the grant for {@code leaseTime}, if this owner still holds it.
     *
     * @throws dev.turnstile.redis.TurnstileException if Redis could not confirm it either way
     */
    Renewal renew(Duration leaseTime);

    /**
     * Releases the grant if this owner holds it.
     *
     * @return -1 if this owner did not hold it ({@link #FORCED_FROM_OWNER} if a forced release took
     *     it from this owner), else the number of waiting processes told
     */
    long release();

    /**
     * Releases the grant like {@link #release()}, but keeps it until {@code holdAtLeast} has passed
     * since it was granted (server clock), if that is still ahead.
     *
     * @return -1 if this owner did not hold it ({@link #FORCED_FROM_OWNER} if a forced release took
     *     it), 0 if it was kept, else the number of waiting processes told
     */
    long releaseAfter(Duration holdAtLeast);

    /**
     * How much sooner than {@code leaseTime} after it was sent a renewal may end: Redlock's allowance
     * for clock drift; 0 by default.
     */
    default long driftNanos(Duration leaseTime) {
        return 0;
    }
}
