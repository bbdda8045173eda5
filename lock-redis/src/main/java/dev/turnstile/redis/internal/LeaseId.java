package dev.turnstile.redis.internal;

import dev.turnstile.redis.LeaseKind;

/**
 * Which lease: what it holds, on which name, with which fencing token. What its messages and log
 * lines name.
 *
 * @param kind a lock's or a semaphore permit's
 * @param name the lock or semaphore name
 * @param fencingToken the token of this grant
 */
record LeaseId(LeaseKind kind, String name, long fencingToken) {

    /** The kind as messages name it: {@code "lock"} or {@code "semaphore"}. */
    String label() {
        return this.kind.label();
    }
}
