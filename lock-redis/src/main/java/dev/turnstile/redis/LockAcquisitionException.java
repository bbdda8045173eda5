package dev.turnstile.redis;

import dev.turnstile.redis.internal.Durations;
import java.time.Duration;

/**
 * A lock was not acquired within its wait time, or the wait was interrupted ({@link
 * #isInterrupted()} tells which). Contention is expected, so this exception has no stack trace.
 */
public final class LockAcquisitionException extends TurnstileException {

    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final Duration waited;
    private final boolean interrupted;

    private LockAcquisitionException(String lockName, Duration waited, boolean interrupted) {
        super(
                interrupted
                        ? WaitMessages.interrupted(waited, "lock '" + lockName + "'", "the lock was not taken")
                        : "Could not acquire lock '" + lockName + "' within " + Durations.format(waited)
                                + ": another owner holds it. Wait longer, or treat this as 'busy, try later'.");
        this.lockName = lockName;
        this.waited = waited;
        this.interrupted = interrupted;
    }

    /**
     * The lock stayed held by another owner for the whole wait: {@code Could not acquire lock
     * 'item:42' within 5s}.
     */
    public static LockAcquisitionException of(String lockName, Duration waited) {
        return new LockAcquisitionException(lockName, waited, false);
    }

    /** The waiting thread was interrupted; its interrupt flag is still set. */
    public static LockAcquisitionException interrupted(String lockName, Duration waited) {
        return new LockAcquisitionException(lockName, waited, true);
    }

    /** Returns the name of the lock (for a multi-key lock, the key that could not be taken). */
    public String lockName() {
        return this.lockName;
    }

    /** Returns how long the caller waited. */
    public Duration waited() {
        return this.waited;
    }

    /**
     * Returns whether the wait ended because the waiting thread was interrupted (see {@link
     * #interrupted}) rather than because another owner held the lock for the whole wait (see
     * {@link #of}). An interrupt says nothing about contention: the lock may well have been free
     * soon.
     */
    public boolean isInterrupted() {
        return this.interrupted;
    }
}
