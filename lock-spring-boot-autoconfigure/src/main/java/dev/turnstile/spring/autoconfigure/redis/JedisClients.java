package dev.turnstile.spring.autoconfigure.redis;

import java.time.Duration;
import java.util.HashSet;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.JedisSentineled;
import redis.clients.jedis.UnifiedJedis;

/**
 * Builds the Jedis client of a {@link RedisConnection}, with the timeouts, client name and pool
 * of {@code spring.data.redis.*}. Uses only constructors that Jedis 6 (Spring Boot 3.5) and Jedis
 * 7 (Spring Boot 4) both have.
 */
final class JedisClients {

    private JedisClients() {}

    static UnifiedJedis create(RedisConnection connection, SpringDataRedisSettings settings) {
        GenericObjectPoolConfig<Connection> pool = pool(settings.jedis().pool());
        return switch (connection.mode()) {
            case CLUSTER ->
                new JedisCluster(new HashSet<>(connection.nodes()), clientConfig(connection, settings, 0), pool);
            case SENTINEL ->
                new JedisSentineled(
                        connection.sentinelMaster(),
                        clientConfig(connection, settings, connection.database()),
                        new HashSet<>(connection.nodes()),
                        DefaultJedisClientConfig.builder()
                                .user(connection.sentinelUsername())
                                .password(connection.sentinelPassword())
                                .timeoutMillis(millis(settings.timeout()))
                                .build());
            case STANDALONE ->
                new JedisPooled(
                        connection.nodes().get(0), clientConfig(connection, settings, connection.database()), pool);
        };
    }

    private static JedisClientConfig clientConfig(
            RedisConnection connection, SpringDataRedisSettings settings, int database) {
        DefaultJedisClientConfig.Builder builder = DefaultJedisClientConfig.builder()
                .user(connection.username())
                .password(connection.password())
                .database(database)
                .clientName(settings.clientName())
                .socketTimeoutMillis(millis(settings.timeout()))
                .connectionTimeoutMillis(millis(settings.connectTimeout()));
        if (connection.ssl() != null) {
            builder.ssl(true).sslSocketFactory(connection.ssl());
        }
        return builder.build();
    }

    private static GenericObjectPoolConfig<Connection> pool(SpringDataRedisSettings.Pool settings) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        if (!Boolean.FALSE.equals(settings.enabled())) {
            pool.setMaxTotal(settings.maxActive());
            pool.setMaxIdle(settings.maxIdle());
            pool.setMinIdle(settings.minIdle());
            if (settings.maxWait() != null) {
                pool.setMaxWait(settings.maxWait());
            }
        }
        return pool;
    }

    /** Spring Boot's default for both timeouts is Jedis's: 2 seconds. */
    private static int millis(@Nullable Duration duration) {
        return duration == null ? 2000 : (int) duration.toMillis();
    }
}
