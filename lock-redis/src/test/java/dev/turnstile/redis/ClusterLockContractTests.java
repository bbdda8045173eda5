package dev.turnstile.redis;

import dev.turnstile.test.redis.RedisCluster;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import redis.clients.jedis.UnifiedJedis;

/** The same lock contract, unchanged, on a Redis Cluster of 3 masters and 3 replicas, through {@code JedisCluster}. */
class ClusterLockContractTests extends LockContract {

    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3, 1);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Override
    protected UnifiedJedis connect() {
        return cluster.newClient(Duration.ofSeconds(2));
    }
}
