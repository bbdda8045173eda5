package dev.turnstile.redis;

import dev.turnstile.test.redis.RedisCluster;
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

    static synchronized RedisCluster cluster() {
        if (cluster == null) {
            cluster = RedisCluster.start(3, 1);
        }
        return cluster;
    }
}
