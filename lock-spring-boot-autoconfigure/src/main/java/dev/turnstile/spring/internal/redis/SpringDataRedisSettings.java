package dev.turnstile.spring.internal.redis;

import dev.turnstile.spring.autoconfigure.redis.RedisConnection;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.core.env.Environment;
import redis.clients.jedis.HostAndPort;

/**
 * The {@code spring.data.redis.*} properties that Turnstile's client honours, bound by Turnstile
 * itself: their names are the same on every Spring Boot line, while the classes that bind them
 * moved between lines. The timeouts, client name and Jedis pool always come from here; the
 * address comes from here only when no {@link RedisConnection} bean describes it.
 *
 * @param url {@code redis://user:password@host:port/database}, or {@code rediss://} for TLS
 * @param host the server's host
 * @param port the server's port
 * @param database the database index
 * @param username the ACL user
 * @param password the password
 * @param timeout the socket (read) timeout; Jedis's 2 seconds when null
 * @param connectTimeout the connect timeout; Jedis's 2 seconds when null
 * @param clientName the name given with CLIENT SETNAME
 * @param ssl {@code ssl.*}
 * @param sentinel {@code sentinel.*}
 * @param cluster {@code cluster.*}
 * @param jedis {@code jedis.pool.*}
 */
public record SpringDataRedisSettings(
        @Nullable String url,
        @DefaultValue("localhost") String host,
        @DefaultValue("6379") int port,
        int database,
        @Nullable String username,
        @Nullable String password,
        @Nullable Duration timeout,
        @Nullable Duration connectTimeout,
        @Nullable String clientName,
        @DefaultValue Ssl ssl,
        @DefaultValue Sentinel sentinel,
        @DefaultValue Cluster cluster,
        @DefaultValue Jedis jedis) {

    /** Binds {@code spring.data.redis.*} from {@code environment}, with Spring Boot's defaults. */
    public static SpringDataRedisSettings bind(Environment environment) {
        return Binder.get(environment).bindOrCreate("spring.data.redis", Bindable.of(SpringDataRedisSettings.class));
    }

    /**
     * The connection these properties describe: cluster nodes, else a sentinel master, else the
     * URL, else host and port. TLS as Spring Boot's own Jedis connection has it: with the SSL bundle
     * {@code ssl.bundle} names, else the JVM's trust store when {@code ssl.enabled} is true or the
     * URL is {@code rediss://}.
     *
     * @param bundles the application's SSL bundles ({@code spring.ssl.bundle.*}), or null without
     *     Spring Boot's SSL auto-configuration
     * @throws InvalidRedisSettingsException naming the property when a node, the URL or the SSL settings cannot be used
     */
    public RedisConnection connection(@Nullable SslBundles bundles) {
        SslBundle tls = this.ssl.isEnabled() || urlUsesSsl() ? this.ssl.resolve(bundles) : null;
        if (!this.cluster.nodes().isEmpty()) {
            return RedisConnection.cluster(
                    nodes("spring.data.redis.cluster.nodes", this.cluster.nodes()), this.username, this.password, tls);
        }
        if (this.sentinel.master() != null && !this.sentinel.master().isBlank()) {
            return new RedisConnection(
                    RedisConnection.Mode.SENTINEL,
                    nodes("spring.data.redis.sentinel.nodes", this.sentinel.nodes()),
                    this.database,
                    this.username,
                    this.password,
                    this.sentinel.master(),
                    this.sentinel.username(),
                    this.sentinel.password(),
                    tls);
        }
        if (this.url != null && !this.url.isBlank()) {
            return fromUrl(this.url, tls);
        }
        return RedisConnection.standalone(
                new HostAndPort(this.host, this.port), this.database, this.username, this.password, tls);
    }

    /**
     * Whether {@code url} is a {@code rediss://} URL: Spring Boot's Jedis connection then uses TLS
     * even though its connection details carry no SSL bundle.
     */
    public boolean urlUsesSsl() {
        return this.url != null && this.url.trim().startsWith("rediss:");
    }

    /**
     * Returns the SSL bundle of a part of Spring Boot's connection details: {@code bundle}, or the
     * system default for a {@code rediss://} URL, for which Boot's Jedis connection uses TLS though
     * its details carry no bundle.
     */
    public static @Nullable SslBundle tls(@Nullable SslBundle bundle, Environment environment) {
        return bundle == null && bind(environment).urlUsesSsl() ? SslBundle.systemDefault() : bundle;
    }

    private RedisConnection fromUrl(String text, @Nullable SslBundle tls) {
        URI uri;
        try {
            uri = URI.create(text.trim());
        } catch (IllegalArgumentException e) {
            throw new InvalidRedisSettingsException(
                    "spring.data.redis.url '" + text + "' is not a URL: " + e.getMessage());
        }
        String scheme = uri.getScheme();
        if (!"redis".equals(scheme) && !"rediss".equals(scheme)) {
            throw new InvalidRedisSettingsException(
                    "spring.data.redis.url '" + text + "' must start with redis:// or rediss://");
        }
        String user = this.username;
        String secret = this.password;
        if (uri.getUserInfo() != null) {
            String[] parts = uri.getUserInfo().split(":", 2);
            if (parts.length == 2) {
                user = parts[0].isEmpty() ? null : parts[0];
                secret = parts[1];
            } else {
                secret = parts[0];
            }
        }
        if (uri.getHost() == null) {
            throw new InvalidRedisSettingsException(
                    "spring.data.redis.url '" + text + "' has no host Turnstile can read;"
                            + " percent-encode special characters in the password (@ as %40, # as %23) and use a host"
                            + " name without underscores");
        }
        int db = this.database;
        String path = uri.getPath();
        if (path != null && path.length() > 1) {
            try {
                db = Integer.parseInt(path.substring(1));
            } catch (NumberFormatException e) {
                throw new InvalidRedisSettingsException("spring.data.redis.url '" + text + "' ends in '" + path
                        + "'; the path must be a database number such as /0");
            }
        }
        return RedisConnection.standalone(
                new HostAndPort(uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 6379), db, user, secret, tls);
    }

    private static List<HostAndPort> nodes(String property, List<String> nodes) {
        List<HostAndPort> parsed = new ArrayList<>();
        for (String node : nodes) {
            int colon = node.lastIndexOf(':');
            String port = colon < 0 ? "" : node.substring(colon + 1).trim();
            if (colon <= 0 || port.isEmpty() || !port.chars().allMatch(Character::isDigit) || port.length() > 5) {
                throw new InvalidRedisSettingsException(
                        property + " lists '" + node + "'; write each node as host:port");
            }
            parsed.add(new HostAndPort(node.substring(0, colon).trim(), Integer.parseInt(port)));
        }
        return parsed;
    }

    /**
     * {@code spring.data.redis.ssl.*}.
     *
     * @param enabled whether to connect with TLS; when unset, whether a bundle is named
     * @param bundle the name of the SSL bundle ({@code spring.ssl.bundle.*}) to connect with
     */
    public record Ssl(@Nullable Boolean enabled, @Nullable String bundle) {

        /** Whether TLS is on, as Spring Boot reads it: {@code enabled}, else whether a bundle is named. */
        public boolean isEnabled() {
            return this.enabled != null ? this.enabled : hasBundle();
        }

        private boolean hasBundle() {
            return this.bundle != null && !this.bundle.isBlank();
        }

        /**
         * The bundle {@code bundle} names, else the JVM's trust store ({@link SslBundle#systemDefault()}).
         *
         * @throws InvalidRedisSettingsException when the named bundle does not exist
         */
        SslBundle resolve(@Nullable SslBundles bundles) {
            if (!hasBundle()) {
                return SslBundle.systemDefault();
            }
            String name = this.bundle.trim();
            if (bundles == null) {
                throw new InvalidRedisSettingsException("spring.data.redis.ssl.bundle is '" + name + "', but the"
                        + " application has no SslBundles bean to find it in; keep Spring Boot's SslAutoConfiguration"
                        + " (spring.ssl.bundle.*) enabled");
            }
            try {
                return bundles.getBundle(name);
            } catch (NoSuchSslBundleException e) {
                throw new InvalidRedisSettingsException("spring.data.redis.ssl.bundle is '" + name + "', but no SSL"
                        + " bundle has that name (defined: " + bundles.getBundleNames() + "); define it, for example"
                        + " spring.ssl.bundle.pem." + name + ".truststore.certificate=classpath:redis-ca.pem");
            }
        }
    }

    /**
     * {@code spring.data.redis.sentinel.*}.
     *
     * @param master the name of the master the sentinels watch
     * @param nodes the sentinels, as host:port
     * @param username the sentinels' ACL user
     * @param password the sentinels' password
     */
    public record Sentinel(
            @Nullable String master,
            @DefaultValue List<String> nodes,
            @Nullable String username,
            @Nullable String password) {}

    /**
     * {@code spring.data.redis.cluster.*}.
     *
     * @param nodes the seed nodes, as host:port
     */
    public record Cluster(@DefaultValue List<String> nodes) {}

    /**
     * {@code spring.data.redis.jedis.*}.
     *
     * @param pool the connection pool
     */
    public record Jedis(@DefaultValue Pool pool) {}

    /**
     * {@code spring.data.redis.jedis.pool.*}, with Spring Boot's defaults.
     *
     * @param enabled false turns pool sizing off (Jedis's own defaults apply)
     * @param maxActive the most connections
     * @param maxIdle the most idle connections
     * @param minIdle the fewest idle connections
     * @param maxWait how long a caller waits for a connection; unbounded when null
     */
    public record Pool(
            @Nullable Boolean enabled,
            @DefaultValue("8") int maxActive,
            @DefaultValue("8") int maxIdle,
            int minIdle,
            @Nullable Duration maxWait) {}
}
