package dev.turnstile.spring.internal.redis;

import dev.turnstile.spring.autoconfigure.redis.RedisConnection;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.core.env.Environment;
import redis.clients.jedis.HostAndPort;

/**
 * Spring Boot's Redis connection details as Turnstile's {@link RedisConnection}, on every Boot
 * line: each line's module reads its own connection-details class (their names and packages
 * differ) and hands the parts here. Connections without an SSL bundle still get TLS for a {@code
 * rediss://} URL, as in Boot's own Jedis connection ({@link SpringDataRedisSettings#tls}).
 *
 * @param username the details' ACL user
 * @param password the details' password
 * @param ssl the details' SSL bundle (Boot 4 has one for the whole connection), or null
 * @param environment where the {@code spring.data.redis.url} is read
 * @param address a node's address, from the line's {@code Node}
 * @param <N> the line's {@code Node}
 */
public record BootConnectionDetails<N>(
        @Nullable String username,
        @Nullable String password,
        @Nullable SslBundle ssl,
        Environment environment,
        Function<N, HostAndPort> address) {

    /** These details with the SSL bundle of one part of them (Boot 3.5 has one per part). */
    public BootConnectionDetails<N> withSsl(@Nullable SslBundle partSsl) {
        return new BootConnectionDetails<>(this.username, this.password, partSsl, this.environment, this.address);
    }

    /** A cluster with these seed nodes. */
    public RedisConnection cluster(List<N> nodes) {
        return RedisConnection.cluster(addresses(nodes), this.username, this.password, tls());
    }

    /** A master that these sentinels watch, reached with the sentinels' own credentials. */
    public RedisConnection sentinel(
            List<N> sentinels,
            int database,
            String master,
            @Nullable String sentinelUsername,
            @Nullable String sentinelPassword) {
        return new RedisConnection(
                RedisConnection.Mode.SENTINEL,
                addresses(sentinels),
                database,
                this.username,
                this.password,
                master,
                sentinelUsername,
                sentinelPassword,
                tls());
    }

    /** One server. */
    public RedisConnection standalone(String host, int port, int database) {
        return RedisConnection.standalone(new HostAndPort(host, port), database, this.username, this.password, tls());
    }

    private List<HostAndPort> addresses(List<N> nodes) {
        return nodes.stream().map(this.address).toList();
    }

    private @Nullable SslBundle tls() {
        return SpringDataRedisSettings.tls(this.ssl, this.environment);
    }
}
