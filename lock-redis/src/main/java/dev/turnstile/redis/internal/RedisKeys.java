package dev.turnstile.redis.internal;

/**
 * The Redis key layout, built in one place. Every key of one lock or semaphore carries the user's
 * name inside one hash tag, so all of them land in one Redis Cluster slot:
 *
 * <pre>
 * {prefix}:lock:{name}          STRING  owner token, PX = lease ("force-released" for a moment after a
 *                                       forced release)
 * {prefix}:released:{name}      STRING  the owner token a forced release took the lock from, PX = what
 *                                       was left of that owner's lease
 * {prefix}:fence:{name}         STRING  the lock's fencing counter
 * {prefix}:free:{name}          channel published on release
 * {prefix}:sem:{name}           ZSET    permit id, score = expiry (server ms)
 * {prefix}:sem:{name}:fence     STRING  the semaphore's fencing counter
 * {prefix}:sem:{name}:queue     ZSET    fair mode: waiter id/lease ms, score = ticket
 * {prefix}:sem:{name}:alive     ZSET    fair mode: waiter id/lease ms, score = its place's expiry (server ms)
 * {prefix}:sem:{name}:ticket    STRING  fair mode: the ticket counter
 * {prefix}:sem:{name}:free      channel published on release
 * </pre>
 */
public final class RedisKeys {

    /**
     * The value a forced release leaves in a lock key for the lock cohort's longest age: no owner
     * holds it, and nobody can take it until it expires.
     */
    public static final String FORCE_RELEASED = "force-released";

    private final String prefix;

    /** Creates the layout under {@code prefix} (no trailing colon). */
    public RedisKeys(String prefix) {
        this.prefix = prefix;
    }

    /** Returns the prefix. */
    public String prefix() {
        return this.prefix;
    }

    /** Returns the lock key of {@code name}. */
    public String lock(String name) {
        return this.prefix + ":lock:{" + name + "}";
    }

    /**
     * Returns the marker of a forced release of lock {@code name}: the owner token it took the lock
     * from, kept as long as that owner's lease had left, so that the owner finds out how it lost it.
     */
    public String lockForceReleased(String name) {
        return this.prefix + ":released:{" + name + "}";
    }

    /** Returns the fencing counter of lock {@code name}. */
    public String lockFence(String name) {
        return this.prefix + ":fence:{" + name + "}";
    }

    /** Returns the release channel of lock {@code name}. */
    public String lockChannel(String name) {
        return this.prefix + ":free:{" + name + "}";
    }

    /** Returns the holders ZSET of semaphore {@code name}. */
    public String semaphore(String name) {
        return this.prefix + ":sem:{" + name + "}";
    }

    /** Returns the fencing counter of semaphore {@code name}. */
    public String semaphoreFence(String name) {
        return semaphore(name) + ":fence";
    }

    /** Returns the release channel of semaphore {@code name}. */
    public String semaphoreChannel(String name) {
        return semaphore(name) + ":free";
    }

    /**
     * Returns the waiters ZSET (member = permit id, a slash and the lease in ms; score = ticket) of
     * fair semaphore {@code name}.
     */
    public String semaphoreQueue(String name) {
        return semaphore(name) + ":queue";
    }

    /** Returns the waiters' liveness ZSET (score = expiry) of fair semaphore {@code name}. */
    public String semaphoreQueueAlive(String name) {
        return semaphore(name) + ":alive";
    }

    /** Returns the ticket counter of fair semaphore {@code name}. */
    public String semaphoreTicket(String name) {
        return semaphore(name) + ":ticket";
    }
}
