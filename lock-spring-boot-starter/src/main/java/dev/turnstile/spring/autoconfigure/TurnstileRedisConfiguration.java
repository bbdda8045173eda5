package dev.turnstile.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.JedisSentineled;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Jedis client Turnstile uses, unless the application defines its own {@code UnifiedJedis}:
 * built from Spring Boot's {@link DataRedisConnectionDetails} (standalone, sentinel or cluster),
 * so {@code spring.data.redis.*}, Testcontainers' {@code @ServiceConnection} and Docker Compose
 * all work unchanged; timeouts and {@code spring.data.redis.jedis.pool.*} are honoured.
 */
@Configuration(proxyBeanMethods = false)
class TurnstileRedisConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(UnifiedJedis.class)
    UnifiedJedis turnstileRedis(
            ObjectProvider<DataRedisConnectionDetails> connectionDetails,
            ObjectProvider<DataRedisProperties> properties) {
        DataRedisConnectionDetails details = connectionDetails.getIfAvailable(() -> new DataRedisConnectionDetails() {
            @Override
            public Standalone getStandalone() {
                return Standalone.of("localhost", 6379);
            }
        });
        DataRedisProperties redis = properties.getIfAvailable(DataRedisProperties::new);
        GenericObjectPoolConfig<Connection> pool = pool(redis);
        if (details.getCluster() != null) {
            return new JedisCluster(nodes(details.getCluster().getNodes()), clientConfig(details, redis, 0), pool);
        }
        if (details.getSentinel() != null) {
            DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
            JedisClientConfig sentinelConfig = DefaultJedisClientConfig.builder()
                    .user(sentinel.getUsername())
                    .password(sentinel.getPassword())
                    .timeoutMillis(millis(redis.getTimeout(), 2000))
                    .build();
            return new JedisSentineled(
                    sentinel.getMaster(),
                    clientConfig(details, redis, sentinel.getDatabase()),
                    nodes(sentinel.getNodes()),
                    sentinelConfig);
        }
        DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
        return new JedisPooled(
                new HostAndPort(standalone.getHost(), standalone.getPort()),
                clientConfig(details, redis, standalone.getDatabase()),
                pool);
    }

    private static JedisClientConfig clientConfig(
            DataRedisConnectionDetails details, DataRedisProperties redis, int database) {
        DefaultJedisClientConfig.Builder builder = DefaultJedisClientConfig.builder()
                .user(details.getUsername())
                .password(details.getPassword())
                .database(database)
                .clientName(redis.getClientName())
                .socketTimeoutMillis(millis(redis.getTimeout(), 2000))
                .connectionTimeoutMillis(millis(redis.getConnectTimeout(), 2000));
        SslBundle ssl = details.getSslBundle();
        if (ssl != null) {
            builder.ssl(true).sslSocketFactory(ssl.createSslContext().getSocketFactory());
        }
        return builder.build();
    }

    private static GenericObjectPoolConfig<Connection> pool(DataRedisProperties redis) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        DataRedisProperties.Pool settings = redis.getJedis().getPool();
        if (settings != null && !Boolean.FALSE.equals(settings.getEnabled())) {
            pool.setMaxTotal(settings.getMaxActive());
            pool.setMaxIdle(settings.getMaxIdle());
            pool.setMinIdle(settings.getMinIdle());
            if (settings.getMaxWait() != null) {
                pool.setMaxWait(settings.getMaxWait());
            }
        }
        return pool;
    }

    private static Set<HostAndPort> nodes(List<DataRedisConnectionDetails.Node> nodes) {
        return nodes.stream()
                .map(node -> new HostAndPort(node.host(), node.port()))
                .collect(Collectors.toSet());
    }

    private static int millis(@Nullable Duration duration, int fallback) {
        return duration == null ? fallback : (int) duration.toMillis();
    }
}
