package dev.turnstile.redis.internal;

/**
 * Where a {@link ManagedLease} is in its life. It starts {@link #HELD}; every other phase is an end
 * (after which nothing renews the lease again), reached by one transition method each, always taken
 * under the lease's lock. A transition that does not apply to a phase is a bug and throws {@link
 * IllegalStateException}.
 *
 * <pre>
 * HELD --lose--&gt; LOST --release--&gt; LOST_RELEASED
 * HELD --release--&gt; RELEASING --released--&gt; RELEASED
 *                             --failed----&gt; RELEASE_FAILED --release--&gt; RETRYING_RELEASE --released/failed--&gt; ...
 * </pre>
 */
enum LeasePhase {
    /** Held: renewed (or topped up) and watched; it may be extended, released or lost. */
    HELD,
    /** The owner's release is in flight; the lease still has its local place. */
    RELEASING,
    /** The owner's release failed in Redis: the lease left its local place; a retry only frees in Redis. */
    RELEASE_FAILED,
    /** The owner's release is retried after a failure (its local place was left then). */
    RETRYING_RELEASE,
    /** Released in Redis, kept there for a hold, or passed on locally: a later release answers false. */
    RELEASED,
    /** Reported lost (found gone, taken over, or past its deadline); its local place is left. */
    LOST,
    /** Lost, then released by its owner: what was left of the grant is freed; a later release answers false. */
    LOST_RELEASED;

    /** Whether the lease was released or lost: nothing renews it any more. */
    boolean ended() {
        return this != HELD;
    }

    /** Whether the lease was lost (whatever its owner did after). */
    boolean lost() {
        return this == LOST || this == LOST_RELEASED;
    }

    /** Whether the grant was given up in Redis (released, passed on, or freed as lost): a release answers false. */
    boolean releasedInRedis() {
        return this == RELEASED || this == LOST_RELEASED;
    }

    /** Whether the lease already left its local place (or passed it on). */
    boolean leftPlace() {
        return this != HELD && this != RELEASING;
    }

    /** A held lease is found lost. */
    LeasePhase lose() {
        return from(this == HELD, LOST, "lose");
    }

    /**
     * The owner's release begins: the first, a retry after a failure, or one from a listener that a
     * release's own loss report runs (a lease lost and released meanwhile stays so).
     */
    LeasePhase release() {
        return switch (this) {
            case HELD, RELEASING -> RELEASING;
            case RELEASE_FAILED, RETRYING_RELEASE -> RETRYING_RELEASE;
            case LOST, LOST_RELEASED -> LOST_RELEASED;
            case RELEASED -> from(false, this, "release");
        };
    }

    /** Redis answered the owner's release (or the grant was passed on). */
    LeasePhase released() {
        return from(this == RELEASING || this == RETRYING_RELEASE || this == RELEASED, RELEASED, "complete a release");
    }

    /** The owner's release failed in Redis (a release it ran inside, from a listener, may have completed). */
    LeasePhase failed() {
        return this == RELEASED || this == RELEASE_FAILED
                ? this
                : from(this == RELEASING || this == RETRYING_RELEASE, RELEASE_FAILED, "fail a release");
    }

    private LeasePhase from(boolean allowed, LeasePhase next, String transition) {
        if (!allowed) {
            throw new IllegalStateException("A lease " + name() + " cannot " + transition);
        }
        return next;
    }
}
