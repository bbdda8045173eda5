package dev.turnstile.redis.internal;

import org.jspecify.annotations.Nullable;

/**
 * The Redis key layout, built in one place. Every key of one lock or semaphore carries the user's
 * name inside one hash tag, so all of them land in one Redis Cluster slot:
 *
 * <pre>
 * {prefix}:lock:{name}          STRING  owner token, PX = lease, followed by "+" once an acquire was
 *                                       refused ("force-released" for a moment after a forced release);
 *                                       also the channel published on a release that found the "+"
 * {prefix}:released:{name}      STRING  the owner token a forced release took the lock from, PX = what
 *                                       was left of that owner's lease
 * {prefix}:fence:{name}         STRING  the lock's fencing counter
 * {prefix}:sem:{name}           ZSET    permit id, score = expiry (server ms)
 * {prefix}:sem:{name}:fence     STRING  the semaphore's fencing counter
 * {prefix}:sem:{name}:queue     ZSET    fair mode: waiter id/lease ms, score = ticket
 * {prefix}:sem:{name}:alive     ZSET    fair mode: waiter id/lease ms, score = its place's expiry (server ms)
 * {prefix}:sem:{name}:ticket    STRING  fair mode: the ticket counter
 * {prefix}:sem:{name}:free      channel published on release
 * </pre>
 *
 * <p>It also reads the layout back: which lock or semaphore a key found by {@code SCAN} is. The key
 * of the name {@code "*"} is the {@code SCAN} pattern of every such key (braces are no pattern
 * characters).
 */
public final class RedisKeys {

    /**
     * The value a forced release leaves in a lock key for the lock cohort's longest age: no owner
     * holds it, and nobody can take it until it expires.
     */
    public static final String FORCE_RELEASED = "force-released";

    /**
     * The mark a refused acquire appends to the owner token in a lock key: someone else wants the
     * lock, so the holder's release publishes and its cohort reserves no further block. (Owner tokens
     * never end with it.)
     */
    public static final String WANTED = "+";

    private static final String LOCK = ":lock:";
    private static final String SEMAPHORE = ":sem:";

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
        return tagged(LOCK, name);
    }

    /** Returns the name of the lock whose key is {@code key}, or null if it is not a lock key. */
    public @Nullable String lockName(String key) {
        return untagged(LOCK, key);
    }

    /**
     * Returns the marker of a forced release of lock {@code name}: the owner token it took the lock
     * from, kept as long as that owner's lease had left, so that the owner finds out how it lost it.
     */
    public String lockForceReleased(String name) {
        return tagged(":released:", name);
    }

    /** Returns the fencing counter of lock {@code name}. */
    public String lockFence(String name) {
        return tagged(":fence:", name);
    }

    /**
     * Returns the release channel of lock {@code name}: its lock key, which the release script has
     * already, so it is handed no channel (channels and keys are apart in Redis, and in a cluster
     * the channel hashes to the key's slot).
     */
    public String lockChannel(String name) {
        return lock(name);
    }

    /** Returns the owner token in lock key value {@code value}, without the {@link #WANTED} mark. */
    public static String owner(String value) {
        return value.endsWith(WANTED) ? value.substring(0, value.length() - WANTED.length()) : value;
    }

    /** Returns the holders ZSET of semaphore {@code name}. */
    public String semaphore(String name) {
        return tagged(SEMAPHORE, name);
    }

    /** Returns the name of the semaphore whose holders ZSET is {@code key}, or null if it is none. */
    public @Nullable String semaphoreName(String key) {
        return untagged(SEMAPHORE, key);
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

    /** {@code {prefix}{kind}{name}}: the name in a hash tag, so every key of it lands in one cluster slot. */
    private String tagged(String kind, String name) {
        return this.prefix + kind + "{" + name + "}";
    }

    /** The name in {@code key} if it is {@link #tagged} of {@code kind}, else null. */
    private @Nullable String untagged(String kind, String key) {
        String start = this.prefix + kind + "{";
        return key.startsWith(start) && key.endsWith("}") ? key.substring(start.length(), key.length() - 1) : null;
    }
}
