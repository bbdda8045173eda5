package dev.turnstile.redis.inspect;

import dev.turnstile.redis.TurnstileDiagnostics.HeldLock;
import dev.turnstile.redis.TurnstileDiagnostics.SemaphoreState;
import dev.turnstile.redis.internal.KeyspaceScan;
import dev.turnstile.redis.internal.RedisKeys;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * Looks into a Redis server for locks: Turnstile's held locks and semaphores under a prefix, and,
 * in any keyspace, lock-like keys that have no TTL — "a lock without a timeout", which never comes
 * back after its holder crashes (the book's naive SETNX lock leaves exactly that).
 *
 * <p>Walks the keyspace with {@code SCAN} (never {@code KEYS}), so it is safe on a busy server; the
 * answer is a snapshot that may miss keys created or deleted during the walk. One server (or one
 * cluster node) at a time. {@link LockInspectorCommand} runs it from the command line.
 */
public final class LockInspector {

    private final UnifiedJedis redis;
    private final KeyspaceScan scan;

    /** Inspects the server behind {@code redis}. */
    public LockInspector(UnifiedJedis redis) {
        this.redis = redis;
        this.scan = new KeyspaceScan(redis);
    }

    /**
     * A key that never expires.
     *
     * @param key the key
     * @param type its Redis type
     */
    public record KeyWithoutTtl(String key, String type) {}

    /** Returns the keys matching {@code pattern} (e.g. {@code "*lock*"}) that have no TTL. */
    public List<KeyWithoutTtl> keysWithoutTtl(String pattern) {
        List<KeyWithoutTtl> found = new ArrayList<>();
        this.scan.forEach(pattern, key -> {
            if (this.redis.pttl(key) == -1) {
                found.add(new KeyWithoutTtl(key, this.redis.type(key)));
            }
        });
        return found;
    }

    /** Returns the locks held under {@code prefix} (Turnstile's key layout). */
    public List<HeldLock> heldLocks(String prefix) {
        return this.scan.heldLocks(new RedisKeys(prefix));
    }

    /** Returns the semaphores under {@code prefix} with their live permits (expired ones are left out). */
    public List<SemaphoreState> semaphores(String prefix) {
        return this.scan.semaphores(new RedisKeys(prefix));
    }
}
