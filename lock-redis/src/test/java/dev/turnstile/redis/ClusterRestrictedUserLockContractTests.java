package dev.turnstile.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.test.redis.RedisServer;
import dev.turnstile.test.redis.RestrictedRedisUser;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * The lock contract, unchanged, on the shared Redis Cluster with Turnstile connected as the
 * README's restricted Redis user: topology, sharded release signals and the Redis version check
 * included.
 */
class ClusterRestrictedUserLockContractTests extends LockContract {

    @Override
    protected UnifiedJedis connect() {
        return SharedCluster.newClientOnEmptyCluster();
    }

    @Override
    protected UnifiedJedis connectTurnstile(UnifiedJedis client) {
        RestrictedRedisUser.createOn(SharedCluster.cluster());
        return RestrictedRedisUser.connect(SharedCluster.cluster());
    }

    @Test
    void releaseSignalsAreShardedForThisUserOnRedis7AndPlainOnRedis6() throws Exception {
        boolean sharded = SharedCluster.cluster().masters().get(0).version().atLeast(7, 0);
        try (Lease held = this.turnstile.lock("sharded").acquire(Duration.ZERO, null)) {
            CompletableFuture<Lease> next = CompletableFuture.supplyAsync(
                    () -> this.otherProcess.lock("sharded").acquire(Duration.ofSeconds(30), null));
            await().atMost(Duration.ofSeconds(5)).until(() -> subscribers("turnstile:lock:{sharded}", sharded) == 1L);
            assertThat(this.turnstile.diagnostics().shardedSignals()).isEqualTo(sharded);
            held.release();
            next.get(5, TimeUnit.SECONDS).release();
            await().atMost(Duration.ofSeconds(5)).until(() -> subscribers("turnstile:lock:{sharded}", sharded) == 0L);
        }
    }

    /** Subscribers of {@code channel} over every node: sharded ones, or plain ones. */
    private static long subscribers(String channel, boolean sharded) {
        long count = 0;
        for (RedisServer master : Stream.concat(
                        SharedCluster.cluster().masters().stream(), SharedCluster.cluster().replicas().stream())
                .toList()) {
            try (Jedis node = master.connect()) {
                List<?> reply = (List<?>)
                        node.sendCommand(Protocol.Command.PUBSUB, sharded ? "SHARDNUMSUB" : "NUMSUB", channel);
                count += (Long) reply.get(1);
            }
        }
        return count;
    }
}
