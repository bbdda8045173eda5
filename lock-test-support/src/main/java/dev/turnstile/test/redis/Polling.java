package dev.turnstile.test.redis;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The pause between two looks at a process that is starting, syncing or failing over: the
 * harness's one polling interval. Callers loop on a real condition with a deadline.
 */
final class Polling {

    private Polling() {}

    /** Pauses 20 ms; an interrupt ends the wait with an {@link IllegalStateException}. */
    static void pause() {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        if (Thread.currentThread().isInterrupted()) {
            throw new IllegalStateException("Interrupted while waiting for a redis process");
        }
    }
}
