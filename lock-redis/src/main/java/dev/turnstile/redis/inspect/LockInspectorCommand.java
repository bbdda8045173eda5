package dev.turnstile.redis.inspect;

import dev.turnstile.redis.TurnstileDiagnostics.HeldLock;
import dev.turnstile.redis.TurnstileDiagnostics.SemaphoreState;
import dev.turnstile.redis.inspect.LockInspector.KeyWithoutTtl;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.PooledConnectionProvider;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * The {@link LockInspector} on the command line: prints lock-like keys without a TTL, then
 * Turnstile's locks and semaphores, and exits with 1 if a key without a TTL was found (2 on a
 * usage error).
 *
 * <pre>
 * java -cp lock-redis.jar:jedis.jar:... dev.turnstile.redis.inspect.LockInspectorCommand redis://host:6379 '*lock*'
 * </pre>
 */
public final class LockInspectorCommand {

    private LockInspectorCommand() {}

    /**
     * Arguments: a Redis URI, then optionally a pattern ({@code "*lock*"}) and a Turnstile prefix
     * ({@code "turnstile"}).
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
