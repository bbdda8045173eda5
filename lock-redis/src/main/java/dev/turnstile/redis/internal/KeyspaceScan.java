package dev.turnstile.redis.internal;

import dev.turnstile.redis.TurnstileDiagnostics.HeldLock;
import dev.turnstile.redis.TurnstileDiagnostics.SemaphoreState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.resps.Tuple;

/**
 * Walks one Redis server's keyspace with {@code SCAN} (never {@code KEYS}), so it is safe on a busy
 * server, and reads Turnstile's held locks and semaphores from it by their {@link RedisKeys key
 * layout}. The answer is a snapshot that may miss keys created or deleted during the walk. One server
 * (or one cluster node) at a time.
 */
public final class KeyspaceScan {

    private static final int BATCH = 500;

    private final UnifiedJedis redis;

    /** Scans the server behind {@code redis}. */
    public KeyspaceScan(UnifiedJedis redis) {
        this.redis = redis;
    }

    /** Calls {@code visitor} with each key matching {@code pattern}, in batches of 500. */
    public void forEach(String pattern, Consumer<String> visitor) {
        ScanParams params = new ScanParams().match(pattern).count(BATCH);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = this.redis.scan(cursor, params);
            page.getResult().forEach(visitor);
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
    }

    /** Returns the locks held under {@code keys}' prefix (a forced release's marker is no holder). */
    public List<HeldLock> heldLocks(RedisKeys keys) {
        List<HeldLock> locks = new ArrayList<>();
        forEach(keys.lock("*"), key -> {
            String owner = this.redis.get(key);
            long ttl = this.redis.pttl(key);
            String name = keys.lockName(key);
            if (owner != null && !owner.equals(RedisKeys.FORCE_RELEASED) && name != null) {
                locks.add(new HeldLock(name, key, RedisKeys.owner(owner), Duration.ofMillis(Math.max(ttl, 0))));
            }
        });
        return locks;
    }

    /** Returns the semaphores under {@code keys}' prefix with their live permits (expired ones are left out). */
    public List<SemaphoreState> semaphores(RedisKeys keys) {
        List<SemaphoreState> semaphores = new ArrayList<>();
        long nowMillis = serverMillis();
        forEach(keys.semaphore("*"), key -> {
            String name = keys.semaphoreName(key);
            if (name != null && "zset".equals(this.redis.type(key))) {
                List<String> holders = new ArrayList<>();
                for (Tuple tuple : this.redis.zrangeByScoreWithScores(key, nowMillis, Double.POSITIVE_INFINITY)) {
                    holders.add(tuple.getElement());
                }
                semaphores.add(new SemaphoreState(name, key, holders));
            }
        });
        return semaphores;
    }

    private long serverMillis() {
        return (Long) this.redis.eval("local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000)");
    }
}
