package dev.turnstile.redis.internal;

import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.providers.ConnectionProvider;
import redis.clients.jedis.providers.PooledConnectionProvider;
import redis.clients.jedis.providers.SentineledConnectionProvider;
import redis.clients.jedis.util.Pool;

/**
 * The deployment one Jedis client talks to, worked out once from the client: one server, a
 * Sentinel-managed master, or a Redis Cluster. Every part of Turnstile that must know asks this:
 * which servers to read {@code INFO} from and how to name them, whether sharded pub/sub may apply,
 * and the client's own connection pool where it has one.
 *
 * <p>The deployment is read from the client's connection provider (a pool, Sentinel's or a
 * cluster's; the same provider classes from Jedis 6.0 to 8.0), never from the client's class: a
 * {@code JedisPooled} and a {@code RedisClient}, a {@code JedisCluster} and a {@code
 * RedisClusterClient} are the same deployment here. This is the one class that depends on how Jedis
 * builds its clients. A client that spreads its commands over several deployments (a multi-endpoint
 * failover client, a client-side sharded one) is refused.
 */
sealed interface Topology {

    /** Provider classes of clients that spread commands over several deployments, by Jedis line. */
    Set<String> SEVERAL_DEPLOYMENTS = Set.of(
            "redis.clients.jedis.mcf.MultiDbConnectionProvider",
            "redis.clients.jedis.mcf.MultiClusterPooledConnectionProvider",
            "redis.clients.jedis.providers.MultiClusterPooledConnectionProvider",
            "redis.clients.jedis.mcf.CircuitBreakerFailoverConnectionProvider",
            "redis.clients.jedis.providers.ShardedConnectionProvider");

    /**
     * The deployment behind {@code client}.
     *
     * @throws IllegalArgumentException if the client spreads its commands over several deployments
     */
    static Topology of(UnifiedJedis client) {
        ConnectionProvider provider = providerOf(client);
        if (provider instanceof ClusterConnectionProvider cluster) {
            return new Cluster(cluster);
        }
        if (provider instanceof SentineledConnectionProvider sentinel) {
            return new Sentinel(client, sentinel);
        }
        if (provider != null && severalDeployments(provider.getClass())) {
            throw new IllegalArgumentException("Turnstile cannot use a "
                    + client.getClass().getName() + " (on a "
                    + provider.getClass().getName()
                    + "): it sends commands to more than one Redis deployment, and a lock held on one is"
                    + " not held on another. Pass a client for one deployment: a RedisClient (one server),"
                    + " a RedisSentinelClient or a RedisClusterClient (JedisPooled, JedisSentineled or"
                    + " JedisCluster before Jedis 7.2); for several independent masters use Redlock.");
        }
        Pool<Connection> pool = provider instanceof PooledConnectionProvider pooled ? pooled.getPool() : null;
        return new OneServer(client, pool);
    }

    /** How messages name the deployment: "Redis", "the cluster". */
    String describe();

    /**
     * The servers whose memory settings matter, read now: the one server, the current master, or
     * each master of the cluster (which may throw Jedis's exceptions).
     *
     * @param name how to name a server whose address the client does not tell
     */
    List<MemoryServer> memoryServers(String name);

    /** Whether this is a cluster, where release signals may use sharded pub/sub. */
    default boolean clustered() {
        return false;
    }

    /**
     * The client's own connection pool to its one server, or null (a Sentinel or cluster client, or
     * a client on a single connection or a provider of its own).
     */
    default @Nullable Pool<Connection> pool() {
        return null;
    }

    /** One server, through the client's pool where it has one. */
    record OneServer(UnifiedJedis client, @Nullable Pool<Connection> pool) implements Topology {

        @Override
        public String describe() {
            return "Redis";
        }

        @Override
        public List<MemoryServer> memoryServers(String name) {
            Pool<Connection> own = this.pool;
            return List.of(own != null ? MemoryServer.pooled(own, name) : MemoryServer.of(this.client, name));
        }
    }

    /** The master a Sentinel group names now, through the client. */
    record Sentinel(UnifiedJedis client, SentineledConnectionProvider provider) implements Topology {

        @Override
        public String describe() {
            return "Redis";
        }

        @Override
        public List<MemoryServer> memoryServers(String name) {
            return List.of(new MemoryServer(
                    () -> String.valueOf(this.provider.getCurrentMaster()), () -> this.client.info("memory")));
        }
    }

    /** A Redis Cluster, through the pools the client keeps per node. */
    record Cluster(ClusterConnectionProvider provider) implements Topology {

        @Override
        public String describe() {
            return "the cluster";
        }

        @Override
        public List<MemoryServer> memoryServers(String name) {
            return MemoryServer.clusterMasters(this);
        }

        @Override
        public boolean clustered() {
            return true;
        }

        /** The pool of each node the client knows, by {@code host:port}. */
        Map<String, ConnectionPool> nodes() {
            return this.provider.getNodes();
        }

        /** A connection to the master of {@code slot}; the caller closes it. */
        Connection connectionToSlot(int slot) {
            return this.provider.getConnectionFromSlot(slot);
        }
    }

    private static boolean severalDeployments(Class<?> providerClass) {
        for (Class<?> type = providerClass; type != null; type = type.getSuperclass()) {
            if (SEVERAL_DEPLOYMENTS.contains(type.getName())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The client's connection provider: {@code UnifiedJedis} keeps it in a protected field on every
     * Jedis line (6.0 to 8.0) and tells it through no method; null if it cannot be read.
     */
    private static @Nullable ConnectionProvider providerOf(UnifiedJedis client) {
        try {
            Field field = UnifiedJedis.class.getDeclaredField("provider");
            field.setAccessible(true);
            return (ConnectionProvider) field.get(client);
        } catch (ReflectiveOperationException | RuntimeException unreadable) {
            return null;
        }
    }
}
