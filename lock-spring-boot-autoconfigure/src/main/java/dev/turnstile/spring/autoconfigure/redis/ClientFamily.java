package dev.turnstile.spring.autoconfigure.redis;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Set;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.JedisSentineled;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Jedis client classes of the Jedis on the class path: {@code RedisClient}, {@code
 * RedisSentinelClient} and {@code RedisClusterClient} from Jedis 7.2 (the only ones in Jedis 8),
 * else {@code JedisPooled}, {@code JedisSentineled} and {@code JedisCluster}. The starter compiles
 * against one Jedis and runs on 6.0 to 8.0: the newer classes are reached through their builders by
 * reflection, and the older ones from a class that is loaded only where they exist.
 */
interface ClientFamily {

    /** The family of the Jedis on the class path. */
    static ClientFamily present() {
        ClassLoader loader = ClientFamily.class.getClassLoader();
        return ClassUtils.isPresent("redis.clients.jedis.RedisClient", loader) ? new Builders() : new Constructors();
    }

    /** A pooled client of one server; {@code pool} null for Jedis's defaults. */
    UnifiedJedis standalone(
            HostAndPort address, JedisClientConfig config, @Nullable GenericObjectPoolConfig<Connection> pool);

    /** A client of the master Sentinel names {@code master}. */
    UnifiedJedis sentinel(
            String master, JedisClientConfig config, Set<HostAndPort> sentinels, JedisClientConfig sentinelConfig);

    /** A cluster client seeded with {@code nodes}. */
    UnifiedJedis cluster(Set<HostAndPort> nodes, JedisClientConfig config, GenericObjectPoolConfig<Connection> pool);

    /** Jedis 7.2 and later: {@code RedisClient.builder()} and its siblings. */
    final class Builders implements ClientFamily {

        private static final String PACKAGE = "redis.clients.jedis.";

        @Override
        public UnifiedJedis standalone(
                HostAndPort address, JedisClientConfig config, @Nullable GenericObjectPoolConfig<Connection> pool) {
            Object builder = newBuilder("RedisClient");
            invoke(builder, "builders.StandaloneClientBuilder", "hostAndPort", HostAndPort.class, address);
            return build(builder, config, pool);
        }

        @Override
        public UnifiedJedis sentinel(
                String master, JedisClientConfig config, Set<HostAndPort> sentinels, JedisClientConfig sentinelConfig) {
            Object builder = newBuilder("RedisSentinelClient");
            String type = "builders.SentinelClientBuilder";
            invoke(builder, type, "masterName", String.class, master);
            invoke(builder, type, "sentinels", Set.class, sentinels);
            invoke(builder, type, "sentinelClientConfig", JedisClientConfig.class, sentinelConfig);
            return build(builder, config, null);
        }

        @Override
        public UnifiedJedis cluster(
                Set<HostAndPort> nodes, JedisClientConfig config, GenericObjectPoolConfig<Connection> pool) {
            Object builder = newBuilder("RedisClusterClient");
            invoke(builder, "builders.ClusterClientBuilder", "nodes", Set.class, nodes);
            return build(builder, config, pool);
        }

        private static Object newBuilder(String client) {
            return invoke(null, client, "builder", null, null);
        }

        private static UnifiedJedis build(
                Object builder, JedisClientConfig config, @Nullable GenericObjectPoolConfig<Connection> pool) {
            String base = "builders.AbstractClientBuilder";
            invoke(builder, base, "clientConfig", JedisClientConfig.class, config);
            if (pool != null) {
                invoke(builder, base, "poolConfig", GenericObjectPoolConfig.class, pool);
            }
            return (UnifiedJedis) invoke(builder, base, "build", null, null);
        }

        /** Runs public method {@code name} (of one parameter, or none) declared by Jedis's {@code type}. */
        private static Object invoke(
                @Nullable Object target,
                String type,
                String name,
                @Nullable Class<?> parameter,
                @Nullable Object argument) {
            try {
                Class<?> declaring = Class.forName(PACKAGE + type, false, ClientFamily.class.getClassLoader());
                Method method = parameter == null ? declaring.getMethod(name) : declaring.getMethod(name, parameter);
                return parameter == null ? method.invoke(target) : method.invoke(target, argument);
            } catch (InvocationTargetException e) {
                throw e.getCause() instanceof RuntimeException runtime
                        ? runtime
                        : new IllegalStateException("Could not build a Jedis client", e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(
                        "The Jedis on the class path has RedisClient but not " + PACKAGE + type + "." + name
                                + ": use Jedis 7.2 or later, or Jedis 6.0 to 7.1",
                        e);
            }
        }
    }

    /** Jedis 6.0 to 7.x: the constructors of {@code JedisPooled} and its siblings (gone in Jedis 8). */
    final class Constructors implements ClientFamily {

        @Override
        public UnifiedJedis standalone(
                HostAndPort address, JedisClientConfig config, @Nullable GenericObjectPoolConfig<Connection> pool) {
            return pool == null ? new JedisPooled(address, config) : new JedisPooled(address, config, pool);
        }

        @Override
        public UnifiedJedis sentinel(
                String master, JedisClientConfig config, Set<HostAndPort> sentinels, JedisClientConfig sentinelConfig) {
            return new JedisSentineled(master, config, sentinels, sentinelConfig);
        }

        @Override
        public UnifiedJedis cluster(
                Set<HostAndPort> nodes, JedisClientConfig config, GenericObjectPoolConfig<Connection> pool) {
            return new JedisCluster(nodes, config, pool);
        }
    }
}
