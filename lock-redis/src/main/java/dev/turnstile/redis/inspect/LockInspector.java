package dev.turnstile.redis.inspect;

import dev.turnstile.redis.TurnstileDiagnostics.HeldLock;
import dev.turnstile.redis.TurnstileDiagnostics.SemaphoreState;
import dev.turnstile.redis.internal.RedisKeys;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.providers.PooledConnectionProvider;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.resps.Tuple;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * Looks into a Redis server for locks: Turnstile's held locks and semaphores under a prefix, and,
 * in any keyspace, lock-like keys that have no TTL — "a lock without a timeout", which never comes
 * back after its holder crashes (the book's naive SETNX lock leaves exactly that).
 *
 * <p>Walks the keyspace with {@code SCAN} (never {@code KEYS}), so it is safe on a busy server; the
 * answer is a snapshot that may miss keys created or deleted during the walk. One server (or one
 * cluster node) at a time.
 *
 * <pre>
 * java -cp lock-redis.jar:jedis.jar:... dev.turnstile.redis.inspect.LockInspector redis://host:6379 '*lock*'
 * </pre>
 */
public final class LockInspector {

    private static final int BATCH = 500;

    private final UnifiedJedis redis;

    /** Inspects the server behind {@code redis}. */
    public LockInspector(UnifiedJedis redis) {
        this.redis = redis;
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
        scan(pattern, key -> {
            if (this.redis.pttl(key) == -1) {
                found.add(new KeyWithoutTtl(key, this.redis.type(key)));
            }
        });
        return found;
    }

    /** Returns the locks held under {@code prefix} (Turnstile's key layout). */
    public List<HeldLock> heldLocks(String prefix) {
        List<HeldLock> locks = new ArrayList<>();
        String start = prefix + ":lock:{";
        scan(prefix + ":lock:*", key -> {
            String owner = this.redis.get(key);
            long ttl = this.redis.pttl(key);
            if (owner != null
                    && !owner.equals(RedisKeys.FORCE_RELEASED)
                    && key.startsWith(start)
                    && key.endsWith("}")) {
                locks.add(new HeldLock(
                        key.substring(start.length(), key.length() - 1),
                        key,
                        owner,
                        Duration.ofMillis(Math.max(ttl, 0))));
            }
        });
        return locks;
    }

    /** Returns the semaphores under {@code prefix} with their live permits (expired ones are left out). */
    public List<SemaphoreState> semaphores(String prefix) {
        List<SemaphoreState> semaphores = new ArrayList<>();
        String start = prefix + ":sem:{";
        long nowMillis = serverMillis();
        scan(prefix + ":sem:*", key -> {
            if (key.startsWith(start) && key.endsWith("}") && "zset".equals(this.redis.type(key))) {
                List<String> holders = new ArrayList<>();
                for (Tuple tuple : this.redis.zrangeByScoreWithScores(key, nowMillis, Double.POSITIVE_INFINITY)) {
                    holders.add(tuple.getElement());
                }
                semaphores.add(new SemaphoreState(key.substring(start.length(), key.length() - 1), key, holders));
            }
        });
        return semaphores;
    }

    private long serverMillis() {
        return (Long) this.redis.eval("local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000)");
    }

    private void scan(String pattern, Consumer<String> visitor) {
        ScanParams params = new ScanParams().match(pattern).count(BATCH);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = this.redis.scan(cursor, params);
            page.getResult().forEach(visitor);
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
    }

    /**
     * Prints lock-like keys without a TTL, then Turnstile's locks and semaphores; exits with 1 if a
     * key without a TTL was found. Arguments: a Redis URI, then optionally a pattern ({@code
     * "*lock*"}) and a Turnstile prefix ({@code "turnstile"}).
     */
    public static void main(String[] args) {
        if (args.length < 1) {
            System.err.println("usage: LockInspector redis://host:port [pattern (*lock*)] [prefix (turnstile)]");
            System.exit(2);
        }
        String pattern = args.length > 1 ? args[1] : "*lock*";
        String prefix = args.length > 2 ? args[2] : "turnstile";
        try (UnifiedJedis redis = connect(URI.create(args[0]))) {
            LockInspector inspector = new LockInspector(redis);
            List<KeyWithoutTtl> eternal = inspector.keysWithoutTtl(pattern);
            System.out.println("Keys matching '" + pattern + "' without a TTL (they never expire): " + eternal.size());
            eternal.forEach(key -> System.out.println("  " + key.key() + " (" + key.type() + ")"));
            List<HeldLock> locks = inspector.heldLocks(prefix);
            System.out.println("Turnstile locks held under '" + prefix + "': " + locks.size());
            locks.forEach(lock -> System.out.println(
                    "  " + lock.name() + " ttl " + lock.remaining().toMillis() + "ms"));
            List<SemaphoreState> semaphores = inspector.semaphores(prefix);
            System.out.println("Turnstile semaphores under '" + prefix + "': " + semaphores.size());
            semaphores.forEach(sem ->
                    System.out.println("  " + sem.name() + " " + sem.holders().size() + " permits held"));
            if (!eternal.isEmpty()) {
                System.exit(1);
            }
        }
    }

    /**
     * A client for {@code uri} ({@code redis://} or {@code rediss://}, user, password, database):
     * built from a pool provider, which every Jedis line from 6.0 to 8.0 has.
     */
    private static UnifiedJedis connect(URI uri) {
        JedisClientConfig config = DefaultJedisClientConfig.builder()
                .user(JedisURIHelper.getUser(uri))
                .password(JedisURIHelper.getPassword(uri))
                .database(JedisURIHelper.getDBIndex(uri))
                .ssl(JedisURIHelper.isRedisSSLScheme(uri))
                .build();
        return new UnifiedJedis(
                new PooledConnectionProvider(JedisURIHelper.getHostAndPort(uri), config), 1, Duration.ofSeconds(5));
    }
}
