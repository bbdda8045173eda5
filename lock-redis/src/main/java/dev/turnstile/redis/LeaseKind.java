package dev.turnstile.redis;

import java.util.Locale;

/** What a lease is on: a lock or a semaphore permit. */
public enum LeaseKind {
    /** A lock (one name of it). */
    LOCK,
    /** A permit of a counting semaphore. */
    SEMAPHORE;

    /** Returns {@code "lock"} or {@code "semaphore"}, for messages and metric tags. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
