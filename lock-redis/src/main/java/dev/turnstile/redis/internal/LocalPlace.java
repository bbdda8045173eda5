package dev.turnstile.redis.internal;

/**
 * The place a lease holds in a queue of this process's threads, and what becomes of it when the
 * lease ends. A lock's leases have one ({@link LocalGates}: the lock cohort), and so do a
 * semaphore's permits ({@link PermitQueue}); a Redlock lease has {@link #NONE}.
 */
interface LocalPlace {

    /** No place: nothing to pass on, nothing to leave. */
    LocalPlace NONE = new LocalPlace() {
        @Override
        public boolean passOn(long deadlineNanos, long leaseNanos) {
            return false;
        }

        @Override
        public void leave(long waitersElsewhere) {}
    };

    /**
     * Passes the lease's grant to the next thread queued here instead of releasing it in Redis, if
     * one queues and enough of the grant is left. Called at most once, on the owner's release, while
     * no renewal of the lease is in flight.
     *
     * @param deadlineNanos the lease's local deadline: the grant lives in Redis at least until then
     * @param leaseNanos the lease's time
     * @return whether it was passed on: the lease then never uses its grant again
     * @throws dev.turnstile.redis.TurnstileException if passing on needed a call to Redis (a
     *     semaphore permit's fresh tokens) that failed: the release fails with it
     */
    boolean passOn(long deadlineNanos, long leaseNanos);

    /**
     * Passes on like {@link #passOn(long, long)}, and when the grant passes without Redis
     * confirming it is still there, keeps {@code lostInRedis}: it is run (reporting this lease lost)
     * if a later call of the grant's next holders finds the grant gone from Redis before any call
     * finds it there. A place that never passes without asking Redis ignores it.
     */
    default boolean passOn(long deadlineNanos, long leaseNanos, Runnable lostInRedis) {
        return passOn(deadlineNanos, leaseNanos);
    }

    /**
     * Tells the place what a call of the lease to Redis (a renewal, a release) found: the grant
     * still there, or gone. Called without the lease's lock.
     */
    default void redisAnswered(boolean held) {}

    /**
     * Leaves the place once the lease ended without passing its grant on (released in Redis, or
     * lost); called at most once.
     *
     * @param waitersElsewhere waiting processes told of the release; -1 if unknown or on loss
     */
    void leave(long waitersElsewhere);
}
