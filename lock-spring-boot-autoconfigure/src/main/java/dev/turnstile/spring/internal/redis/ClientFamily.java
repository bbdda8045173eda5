package dev.turnstile.spring.internal.redis;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Set;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Jedis client classes of the Jedis on the class path: {@code RedisClient}, {@code
 * RedisSentinelClient} and {@code RedisClusterClient} from Jedis 7.2 (the only ones in Jedis 8),
 * else {@code JedisPooled}, {@code JedisSentineled} and {@code JedisCluster}. The starter compiles
 * against one Jedis and runs on 6.0 to 8.0, so both are reached by reflection (the newer through
 * their builders, the older through their constructors), and it compiles against any of them.
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

    /**
     * Jedis 6.0 to 7.x: the constructors of {@code JedisPooled} and its siblings, which Jedis 8
     * removed; reached by reflection, so that nothing here names them.
     */
    final class Constructors implements ClientFamily {

        @Override
        public UnifiedJedis standalone(
                HostAndPort address, JedisClientConfig config, @Nullable GenericObjectPoolConfig<Connection> pool) {
            return pool == null
                    ? construct("JedisPooled", List.of(HostAndPort.class, JedisClientConfig.class), address, config)
                    : construct(
                            "JedisPooled",
                            List.of(HostAndPort.class, JedisClientConfig.class, GenericObjectPoolConfig.class),
                            address,
                            config,
                            pool);
        }

        @Override
        public UnifiedJedis sentinel(
                String master, JedisClientConfig config, Set<HostAndPort> sentinels, JedisClientConfig sentinelConfig) {
            return construct(
                    "JedisSentineled",
                    List.of(String.class, JedisClientConfig.class, Set.class, JedisClientConfig.class),
                    master,
                    config,
                    sentinels,
                    sentinelConfig);
        }

        @Override
        public UnifiedJedis cluster(
                Set<HostAndPort> nodes, JedisClientConfig config, GenericObjectPoolConfig<Connection> pool) {
            return construct(
                    "JedisCluster",
                    List.of(Set.class, JedisClientConfig.class, GenericObjectPoolConfig.class),
                    nodes,
                    config,
                    pool);
        }

        private static UnifiedJedis construct(String client, List<Class<?>> parameters, Object... arguments) {
            try {
                Class<?> type =
                        Class.forName("redis.clients.jedis." + client, false, ClientFamily.class.getClassLoader());
                return (UnifiedJedis)
                        type.getConstructor(parameters.toArray(Class<?>[]::new)).newInstance(arguments);
            } catch (InvocationTargetException e) {
                throw e.getCause() instanceof RuntimeException runtime
                        ? runtime
                        : new IllegalStateException("Could not build a " + client, e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(
                        "The Jedis on the class path has neither RedisClient nor a " + client + parameters
                                + " constructor: use Jedis 6.0 or later",
                        e);
            }
        }
    }
}
