package dev.turnstile.test.redis;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Locale;
import java.util.Set;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.JedisSentineled;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.Pool;

/**
 * Jedis clients for tests, of the family the Jedis on the class path documents: {@code RedisClient},
 * {@code RedisClusterClient} and {@code RedisSentinelClient} where it has them (Jedis 7.2 and later),
 * else {@code JedisPooled}, {@code JedisCluster} and {@code JedisSentineled}. The tests are compiled
 * against one Jedis and run on 6.0 to 8.0, so the newer family is reached by reflection and the older
 * one through a class loaded only where it exists.
 *
 * <p>System properties: {@code turnstile.jedis.clients=legacy} uses the older family where both
 * exist; {@code turnstile.redis.protocol=RESP3} (or {@code RESP2}) sets the protocol of every client
 * config the test support builds (unset: the Jedis line's default, which is RESP3 from Jedis 8).
 */
public final class RedisClients {

    private static final boolean CURRENT = isPresent("redis.clients.jedis.RedisClient")
            && !"legacy".equals(System.getProperty("turnstile.jedis.clients"));

    private RedisClients() {}

    /** Returns whether clients are of the {@code RedisClient} family. */
    public static boolean current() {
        return CURRENT;
    }

    /** Returns the protocol the tests ask for, or null for the Jedis line's default. */
    public static @Nullable RedisProtocol protocol() {
        String name = System.getProperty("turnstile.redis.protocol", "");
        return name.isBlank() ? null : RedisProtocol.valueOf(name.strip().toUpperCase(Locale.ROOT));
    }

    /** Sets the protocol the tests ask for (see {@link #protocol()}) on {@code config}, and returns it. */
    public static DefaultJedisClientConfig.Builder withProtocol(DefaultJedisClientConfig.Builder config) {
        RedisProtocol protocol = protocol();
        return protocol == null ? config : config.protocol(protocol);
    }

    /** A pooled client of one server; the caller closes it. */
    public static UnifiedJedis standalone(HostAndPort address, JedisClientConfig config) {
        return standalone(address, config, null);
    }

    /** A pooled client of one server with its own pool settings; the caller closes it. */
    public static UnifiedJedis standalone(
            HostAndPort address, JedisClientConfig config, @Nullable GenericObjectPoolConfig<Connection> pool) {
        if (!CURRENT) {
            return Legacy.standalone(address, config, pool);
        }
        Object builder = call(null, "redis.clients.jedis.RedisClient", "builder");
        String type = "redis.clients.jedis.builders.StandaloneClientBuilder";
        call(builder, type, "hostAndPort", HostAndPort.class, address);
        return build(builder, type, config, pool);
    }

    /** A cluster client that tries a command at most {@code maxAttempts} times; the caller closes it. */
    public static UnifiedJedis cluster(Set<HostAndPort> seeds, JedisClientConfig config, int maxAttempts) {
        if (!CURRENT) {
            return Legacy.cluster(seeds, config, maxAttempts);
        }
        Object builder = call(null, "redis.clients.jedis.RedisClusterClient", "builder");
        String type = "redis.clients.jedis.builders.ClusterClientBuilder";
        call(builder, type, "nodes", Set.class, seeds);
        call(builder, type, "maxAttempts", int.class, maxAttempts);
        return build(builder, type, config, null);
    }

    /** A client of the master that Sentinel names {@code master}; the caller closes it. */
    public static UnifiedJedis sentinel(
            String master, JedisClientConfig config, Set<HostAndPort> sentinels, JedisClientConfig sentinelConfig) {
        if (!CURRENT) {
            return Legacy.sentinel(master, config, sentinels, sentinelConfig);
        }
        Object builder = call(null, "redis.clients.jedis.RedisSentinelClient", "builder");
        String type = "redis.clients.jedis.builders.SentinelClientBuilder";
        call(builder, type, "masterName", String.class, master);
        call(builder, type, "sentinels", Set.class, sentinels);
        call(builder, type, "sentinelClientConfig", JedisClientConfig.class, sentinelConfig);
        return build(builder, type, config, null);
    }

    /** The pool of a one-server client ({@code getPool()} of {@code JedisPooled} and {@code RedisClient}). */
    @SuppressWarnings("unchecked")
    public static Pool<Connection> poolOf(UnifiedJedis client) {
        return (Pool<Connection>) call(client, client.getClass().getName(), "getPool");
    }

    private static UnifiedJedis build(
            Object builder, String type, JedisClientConfig config, @Nullable GenericObjectPoolConfig<Connection> pool) {
        String base = "redis.clients.jedis.builders.AbstractClientBuilder";
        call(builder, base, "clientConfig", JedisClientConfig.class, config);
        if (pool != null) {
            call(builder, base, "poolConfig", GenericObjectPoolConfig.class, pool);
        }
        return (UnifiedJedis) call(builder, type, "build");
    }

    /** Calls public method {@code name} of {@code type} on {@code target} (null: a static method). */
    private static Object call(@Nullable Object target, String type, String name, Object... typesAndArguments) {
        Class<?>[] types = new Class<?>[typesAndArguments.length / 2];
        Object[] arguments = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            types[i] = (Class<?>) typesAndArguments[2 * i];
            arguments[i] = typesAndArguments[2 * i + 1];
        }
        try {
            Method method = Class.forName(type).getMethod(name, types);
            method.setAccessible(true);
            return method.invoke(target, arguments);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("This Jedis has no " + type + "." + name + ": " + e, e);
        }
    }

    private static boolean isPresent(String className) {
        try {
            Class.forName(className, false, RedisClients.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    /** The older family; loaded only where it is used, so never on Jedis 8, which removed it. */
    private static final class Legacy {

        static UnifiedJedis standalone(
                HostAndPort address, JedisClientConfig config, @Nullable GenericObjectPoolConfig<Connection> pool) {
            return pool == null ? new JedisPooled(address, config) : new JedisPooled(address, config, pool);
        }

        static UnifiedJedis cluster(Set<HostAndPort> seeds, JedisClientConfig config, int maxAttempts) {
            return new JedisCluster(seeds, config, maxAttempts);
        }

        static UnifiedJedis sentinel(
                String master, JedisClientConfig config, Set<HostAndPort> sentinels, JedisClientConfig sentinelConfig) {
            return new JedisSentineled(master, config, sentinels, sentinelConfig);
        }
    }
}
