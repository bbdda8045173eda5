package dev.turnstile.redis.internal;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The safety-net pause of a waiter that has heard no release signal: exponential from 10 ms to a
 * 500 ms cap, with full jitter in the upper half so waiters of many processes do not retry in step.
 * One instance per wait; not thread-safe.
 */
final class Backoff {

    private static final long FIRST = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long CAP = TimeUnit.MILLISECONDS.toNanos(500);

    private long current = FIRST;

    /** Returns the next pause in nanoseconds. */
    public long nextNanos() {
        long bound = this.current;
        this.current = Math.min(this.current * 2, CAP);
        return bound / 2 + ThreadLocalRandom.current().nextLong(bound / 2 + 1);
    }
}
