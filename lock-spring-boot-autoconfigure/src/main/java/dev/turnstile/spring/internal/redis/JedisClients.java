package dev.turnstile.spring.internal.redis;

import dev.turnstile.spring.autoconfigure.redis.RedisConnection;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import javax.net.ssl.SSLParameters;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslOptions;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * Builds Turnstile's Jedis clients: the client of a {@link RedisConnection}, with the timeouts,
 * client name and pool of {@code spring.data.redis.*}, and the client of a Redlock master. Over TLS
 * the server's certificate must name the host connected to (checked as HTTPS does), and an SSL
 * bundle's ciphers and protocols apply. The clients are of the family the Jedis on the class path
 * documents: {@code RedisClient}, {@code RedisSentinelClient} and {@code RedisClusterClient} from
 * Jedis 7.2 (Spring Boot 4.1, Jedis 8), else {@code JedisPooled}, {@code JedisSentineled} and {@code
 * JedisCluster} (Spring Boot 3.5 and 4.0).
 */
public final class JedisClients {

    private static final ClientFamily FAMILY = ClientFamily.present();

    private JedisClients() {}

    /** Returns a new client connected where {@code connection} says; the caller closes it. */
    public static UnifiedJedis create(RedisConnection connection, SpringDataRedisSettings settings) {
        GenericObjectPoolConfig<Connection> pool = pool(settings.jedis().pool());
        return switch (connection.mode()) {
            case CLUSTER ->
                FAMILY.cluster(new HashSet<>(connection.nodes()), clientConfig(connection, settings, 0), pool);
            case SENTINEL ->
                FAMILY.sentinel(
                        connection.sentinelMaster(),
                        clientConfig(connection, settings, connection.database()),
                        new HashSet<>(connection.nodes()),
                        tls(
                                        DefaultJedisClientConfig.builder()
                                                .user(connection.sentinelUsername())
                                                .password(connection.sentinelPassword())
                                                .timeoutMillis(millis(settings.timeout())),
                                        connection.ssl())
                                .build());
            case STANDALONE ->
                FAMILY.standalone(
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
        return tls(builder, connection.ssl()).build();
    }

    /**
     * Returns a new pooled client of one Redlock master, as Jedis reads {@code node} ({@code
     * redis://} or {@code rediss://}, user, password, database), with Jedis's default timeouts and
     * pool; over TLS when {@code ssl} is not null. The caller closes it.
     */
    public static UnifiedJedis redlockMaster(URI node, @Nullable SslBundle ssl) {
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .user(JedisURIHelper.getUser(node))
                .password(JedisURIHelper.getPassword(node))
                .database(JedisURIHelper.getDBIndex(node));
        return FAMILY.standalone(
                JedisURIHelper.getHostAndPort(node), tls(config, ssl).build(), null);
    }

    private static DefaultJedisClientConfig.Builder tls(
            DefaultJedisClientConfig.Builder builder, @Nullable SslBundle ssl) {
        if (ssl == null) {
            return builder;
        }
        // Spring Data Redis's Jedis path applies the ciphers and protocols but checks no host name;
        // Turnstile checks it, as Lettuce (Boot's default client) does.
        SSLParameters parameters = new SSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        SslOptions options = ssl.getOptions();
        if (options.getCiphers() != null) {
            parameters.setCipherSuites(options.getCiphers());
        }
        if (options.getEnabledProtocols() != null) {
            parameters.setProtocols(options.getEnabledProtocols());
        }
        return builder.ssl(true)
                .sslSocketFactory(ssl.createSslContext().getSocketFactory())
                .sslParameters(parameters);
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
