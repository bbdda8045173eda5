package dev.turnstile.redis;

import dev.turnstile.test.redis.RedisCluster;
import dev.turnstile.test.redis.RedisServer;
import java.time.Duration;
import redis.clients.jedis.UnifiedJedis;

/**
 * One 3+3 Redis Cluster for the contract suites that run on a cluster, started on first use and
 * reaped when the test JVM exits (every node is a {@code RedisServer}, which a shutdown hook kills).
 */
final class SharedCluster {

    private static RedisCluster cluster;

    private SharedCluster() {}

    static synchronized UnifiedJedis newClient() {
        return cluster().newClient(Duration.ofSeconds(2));
    }

    /**
     * Empties every master, then returns a new client: the contract suites share the cluster and
     * use the same names, so each of their tests starts from nothing, as on a server of its own.
     */
    static synchronized UnifiedJedis newClientOnEmptyCluster() {
        cluster().masters().forEach(RedisServer::flushAll);
        return newClient();
    }

    static synchronized RedisCluster cluster() {
        if (cluster == null) {
            cluster = RedisCluster.start(3, 1);
        }
        return cluster;
    }
}
