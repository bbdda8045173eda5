package dev.turnstile.spring.autoconfigure.redis;

import dev.turnstile.spring.internal.redis.SpringDataRedisSettings;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;
import redis.clients.jedis.HostAndPort;

/**
 * Where Turnstile's Jedis client connects, in one shape for every Spring Boot line. The
 * line-specific modules ({@code lock-boot3-autoconfigure}, {@code lock-boot4-autoconfigure}) turn
 * their line's connection-details bean ({@code RedisConnectionDetails}, {@code
 * DataRedisConnectionDetails}) into a bean of this type, so {@code spring.data.redis.*},
 * Testcontainers' {@code @ServiceConnection} and Docker Compose work unchanged; without such a bean
 * Turnstile reads {@code spring.data.redis.*} itself ({@link SpringDataRedisSettings}). An
 * application may also define this bean itself.
 *
 * @param mode standalone, sentinel or cluster
 * @param nodes the server (standalone), the sentinels, or the cluster's seed nodes
 * @param database the database index (standalone and sentinel)
 * @param username the ACL user of the data nodes, or null
 * @param password the password of the data nodes, or null
 * @param sentinelMaster the name of the master the sentinels watch (sentinel mode)
 * @param sentinelUsername the ACL user of the sentinels, or null
 * @param sentinelPassword the password of the sentinels, or null
 * @param ssl the SSL bundle to connect with TLS ({@link SslBundle#systemDefault()} for the JVM's trust
 *     store), or null for plain TCP. Turnstile checks that the server's certificate names the host it
 *     connects to, as HTTPS does, and applies the bundle's ciphers and protocols.
 */
public record RedisConnection(
        Mode mode,
        List<HostAndPort> nodes,
        int database,
        @Nullable String username,
        @Nullable String password,
        @Nullable String sentinelMaster,
        @Nullable String sentinelUsername,
        @Nullable String sentinelPassword,
        @Nullable SslBundle ssl) {

    /** How the Redis deployment is reached. */
    public enum Mode {
        /** One server. */
        STANDALONE,
        /** A master found through Redis Sentinel. */
        SENTINEL,
        /** Redis Cluster. */
        CLUSTER
    }

    /**
     * Validates the components.
     *
     * @throws IllegalArgumentException without nodes, or in sentinel mode without a master name
     */
    public RedisConnection {
        nodes = List.copyOf(nodes);
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("A Redis connection needs at least one node (" + mode + ")");
        }
        if (mode == Mode.SENTINEL && (sentinelMaster == null || sentinelMaster.isBlank())) {
            throw new IllegalArgumentException(
                    "A sentinel connection needs the master's name (spring.data.redis.sentinel.master)");
        }
    }

    /** One server. */
    public static RedisConnection standalone(
            HostAndPort server,
            int database,
            @Nullable String username,
            @Nullable String password,
            @Nullable SslBundle ssl) {
        return new RedisConnection(
                Mode.STANDALONE, List.of(server), database, username, password, null, null, null, ssl);
    }

    /** A cluster reached through {@code seeds}. */
    public static RedisConnection cluster(
            List<HostAndPort> seeds, @Nullable String username, @Nullable String password, @Nullable SslBundle ssl) {
        return new RedisConnection(Mode.CLUSTER, seeds, 0, username, password, null, null, null, ssl);
    }
}
