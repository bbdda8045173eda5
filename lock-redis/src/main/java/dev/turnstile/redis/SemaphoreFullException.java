package dev.turnstile.redis;

import dev.turnstile.redis.internal.Durations;
import java.time.Duration;

/**
 * No permit of a semaphore became free within the wait. Contention is expected, so this exception
 * has no stack trace.
 */
public final class SemaphoreFullException extends TurnstileException {

    private static final long serialVersionUID = 1L;

    private final String semaphoreName;
    private final int limit;
    private final Duration waited;

    private SemaphoreFullException(String semaphoreName, int limit, Duration waited, boolean interrupted) {
        super(
                interrupted
                        ? WaitMessages.interrupted(
                                waited, "a permit of semaphore '" + semaphoreName + "'", "no permit was taken")
                        : "Semaphore '" + semaphoreName + "' is full: all " + limit + " permits are held (waited "
                                + Durations.format(waited) + "). Retry later or raise the limit.");
        this.semaphoreName = semaphoreName;
        this.limit = limit;
        this.waited = waited;
    }

    /** {@code Semaphore 'account:7' is full: all 5 permits are held (waited 0ms)}. */
    public static SemaphoreFullException of(String semaphoreName, int limit, Duration waited) {
        return new SemaphoreFullException(semaphoreName, limit, waited, false);
    }

    /** The waiting thread was interrupted; its interrupt flag is still set. */
    public static SemaphoreFullException interrupted(String semaphoreName, int limit, Duration waited) {
        return new SemaphoreFullException(semaphoreName, limit, waited, true);
    }

    /** Returns the semaphore's name. */
    public String semaphoreName() {
        return this.semaphoreName;
    }

    /** Returns the semaphore's limit. */
    public int limit() {
        return this.limit;
    }

    /** Returns how long the caller waited. */
    public Duration waited() {
        return this.waited;
    }
}
