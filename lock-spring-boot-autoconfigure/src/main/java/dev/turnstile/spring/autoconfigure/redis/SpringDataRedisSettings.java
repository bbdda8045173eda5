package dev.turnstile.spring.autoconfigure.redis;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocketFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import redis.clients.jedis.HostAndPort;

/**
 * The {@code spring.data.redis.*} properties that Turnstile's client honours, bound by Turnstile
 * itself: their names are the same on every Spring Boot line, while the classes that bind them
 * moved between lines. The timeouts, client name and Jedis pool always come from here; the
 * address comes from here only when no {@link RedisConnection} bean describes it. Mutable
 * JavaBean for binding; not for application use.
 */
public class SpringDataRedisSettings {

    private @Nullable String url;
    private String host = "localhost";
    private int port = 6379;
    private int database;
    private @Nullable String username;
    private @Nullable String password;
    private @Nullable Duration timeout;
    private @Nullable Duration connectTimeout;
    private @Nullable String clientName;
    private final Ssl ssl = new Ssl();
    private final Sentinel sentinel = new Sentinel();
    private final Cluster cluster = new Cluster();
    private final Jedis jedis = new Jedis();

    /** Binds {@code spring.data.redis.*} from {@code environment}. */
    public static SpringDataRedisSettings bind(Environment environment) {
        return Binder.get(environment)
                .bind("spring.data.redis", SpringDataRedisSettings.class)
                .orElseGet(SpringDataRedisSettings::new);
    }

    /**
     * The connection these properties describe: cluster nodes, else a sentinel master, else the
     * URL, else host and port.
     *
     * @throws IllegalArgumentException naming the property when a node or URL is malformed
     */
    public RedisConnection connection() {
        SSLSocketFactory tls = this.ssl.enabled ? (SSLSocketFactory) SSLSocketFactory.getDefault() : null;
        if (!this.cluster.nodes.isEmpty()) {
            return RedisConnection.cluster(
                    nodes("spring.data.redis.cluster.nodes", this.cluster.nodes), this.username, this.password, tls);
        }
        if (this.sentinel.master != null && !this.sentinel.master.isBlank()) {
            return new RedisConnection(
                    RedisConnection.Mode.SENTINEL,
                    nodes("spring.data.redis.sentinel.nodes", this.sentinel.nodes),
                    this.database,
                    this.username,
                    this.password,
                    this.sentinel.master,
                    this.sentinel.username,
                    this.sentinel.password,
                    tls);
        }
        if (this.url != null && !this.url.isBlank()) {
            return fromUrl(this.url);
        }
        return RedisConnection.standalone(
                new HostAndPort(this.host, this.port), this.database, this.username, this.password, tls);
    }

    private RedisConnection fromUrl(String text) {
        URI uri;
        try {
            uri = URI.create(text.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("spring.data.redis.url '" + text + "' is not a URL: " + e.getMessage());
        }
        String scheme = uri.getScheme();
        if (!"redis".equals(scheme) && !"rediss".equals(scheme)) {
            throw new IllegalArgumentException(
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
        int db = this.database;
        String path = uri.getPath();
        if (path != null && path.length() > 1) {
            db = Integer.parseInt(path.substring(1));
        }
        boolean tls = "rediss".equals(scheme) || this.ssl.enabled;
        return RedisConnection.standalone(
                new HostAndPort(uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 6379),
                db,
                user,
                secret,
                tls ? (SSLSocketFactory) SSLSocketFactory.getDefault() : null);
    }

    private static List<HostAndPort> nodes(String property, List<String> nodes) {
        List<HostAndPort> parsed = new ArrayList<>();
        for (String node : nodes) {
            int colon = node.lastIndexOf(':');
            try {
                parsed.add(
                        new HostAndPort(node.substring(0, colon).trim(), Integer.parseInt(node.substring(colon + 1))));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(property + " lists '" + node + "'; write each node as host:port", e);
            }
        }
        return parsed;
    }

    public @Nullable String getUrl() {
        return this.url;
    }

    public void setUrl(@Nullable String url) {
        this.url = url;
    }

    public String getHost() {
        return this.host;
    }

    public void setHost(String host) {
        this.host = host;
    }

    public int getPort() {
        return this.port;
    }

    public void setPort(int port) {
        this.port = port;
    }

    public int getDatabase() {
        return this.database;
    }

    public void setDatabase(int database) {
        this.database = database;
    }

    public @Nullable String getUsername() {
        return this.username;
    }

    public void setUsername(@Nullable String username) {
        this.username = username;
    }

    public @Nullable String getPassword() {
        return this.password;
    }

    public void setPassword(@Nullable String password) {
        this.password = password;
    }

    public @Nullable Duration getTimeout() {
        return this.timeout;
    }

    public void setTimeout(@Nullable Duration timeout) {
        this.timeout = timeout;
    }

    public @Nullable Duration getConnectTimeout() {
        return this.connectTimeout;
    }

    public void setConnectTimeout(@Nullable Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public @Nullable String getClientName() {
        return this.clientName;
    }

    public void setClientName(@Nullable String clientName) {
        this.clientName = clientName;
    }

    public Ssl getSsl() {
        return this.ssl;
    }

    public Sentinel getSentinel() {
        return this.sentinel;
    }

    public Cluster getCluster() {
        return this.cluster;
    }

    public Jedis getJedis() {
        return this.jedis;
    }

    /** {@code spring.data.redis.ssl.*}. */
    public static class Ssl {
        private boolean enabled;

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** {@code spring.data.redis.sentinel.*}. */
    public static class Sentinel {
        private @Nullable String master;
        private List<String> nodes = new ArrayList<>();
        private @Nullable String username;
        private @Nullable String password;

        public @Nullable String getMaster() {
            return this.master;
        }

        public void setMaster(@Nullable String master) {
            this.master = master;
        }

        public List<String> getNodes() {
            return this.nodes;
        }

        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }

        public @Nullable String getUsername() {
            return this.username;
        }

        public void setUsername(@Nullable String username) {
            this.username = username;
        }

        public @Nullable String getPassword() {
            return this.password;
        }

        public void setPassword(@Nullable String password) {
            this.password = password;
        }
    }

    /** {@code spring.data.redis.cluster.*}. */
    public static class Cluster {
        private List<String> nodes = new ArrayList<>();

        public List<String> getNodes() {
            return this.nodes;
        }

        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }
    }

    /** {@code spring.data.redis.jedis.*}. */
    public static class Jedis {
        private final Pool pool = new Pool();

        public Pool getPool() {
            return this.pool;
        }
    }

    /** {@code spring.data.redis.jedis.pool.*}. */
    public static class Pool {
        private @Nullable Boolean enabled;
        private int maxActive = 8;
        private int maxIdle = 8;
        private int minIdle;
        private @Nullable Duration maxWait;

        public @Nullable Boolean getEnabled() {
            return this.enabled;
        }

        public void setEnabled(@Nullable Boolean enabled) {
            this.enabled = enabled;
        }

        public int getMaxActive() {
            return this.maxActive;
        }

        public void setMaxActive(int maxActive) {
            this.maxActive = maxActive;
        }

        public int getMaxIdle() {
            return this.maxIdle;
        }

        public void setMaxIdle(int maxIdle) {
            this.maxIdle = maxIdle;
        }

        public int getMinIdle() {
            return this.minIdle;
        }

        public void setMinIdle(int minIdle) {
            this.minIdle = minIdle;
        }

        public @Nullable Duration getMaxWait() {
            return this.maxWait;
        }

        public void setMaxWait(@Nullable Duration maxWait) {
            this.maxWait = maxWait;
        }
    }
}
