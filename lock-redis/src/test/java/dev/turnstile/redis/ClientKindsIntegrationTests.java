package dev.turnstile.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.turnstile.redis.TurnstileDiagnostics.Eviction;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.test.redis.RedisCluster;
import dev.turnstile.test.redis.RedisServer;
import dev.turnstile.test.redis.RedisServerExtension;
import dev.turnstile.test.redis.RedisVersion;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.MultiDbClient;
import redis.clients.jedis.MultiDbConfig;
import redis.clients.jedis.UnifiedJedis;

/**
 * What Turnstile makes of each kind of Jedis client, on whichever Jedis line runs the suite: the
 * family that line documents (RedisClient and its siblings from 7.2, else JedisPooled and its
 * siblings) is read as the same deployment, and a client over several deployments is refused when
 * the Turnstile or Redlock is built. Runs on Jedis 7.0 and later (the failover client came in 7.0).
 */
class ClientKindsIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aOneServerClientIsReadThroughItsOwnPoolAndNamedByItsAddress() {
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(2));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            List<Eviction> servers = turnstile.diagnostics().eviction();
            assertThat(servers).extracting(Eviction::server).containsExactly(address(redis.server()));
        }
    }

    @Test
    void aClusterClientIsAClusterEveryMasterOfWhichIsRead() {
        RedisCluster cluster = SharedCluster.cluster();
        try (UnifiedJedis client = SharedCluster.newClient();
                Turnstile turnstile = Turnstile.builder(client).build()) {
            List<Eviction> servers = turnstile.diagnostics().eviction();
            assertThat(servers)
                    .extracting(Eviction::server)
                    .containsExactlyInAnyOrderElementsOf(cluster.masters().stream()
                            .map(ClientKindsIntegrationTests::address)
                            .toList());
            boolean sharded = version(cluster.masters().get(0)).atLeast(7, 0);
            assertThat(turnstile.diagnostics().shardedSignals()).isEqualTo(sharded);
        }
    }

    @Test
    void aSentinelClientIsReadAtTheMasterTheSentinelsNameNow() {
        try (UnifiedJedis client = SharedSentinelGroup.newClientOnEmptyMaster();
                Turnstile turnstile = Turnstile.builder(client).build()) {
            List<Eviction> servers = turnstile.diagnostics().eviction();
            assertThat(servers)
                    .extracting(Eviction::server)
                    .containsExactly(address(SharedSentinelGroup.group().currentMaster()));
            assertThat(turnstile.diagnostics().shardedSignals()).isFalse();
        }
    }

    @Test
    void aClientOverSeveralDeploymentsIsRefusedWhenBuiltNamingItsClassAndWhatToPass() {
        MultiDbConfig config = MultiDbConfig.builder(List.of(new MultiDbConfig.DatabaseConfig(
                        redis.server().hostAndPort(),
                        DefaultJedisClientConfig.builder().build())))
                .build();
        try (UnifiedJedis failover =
                        MultiDbClient.builder().multiDbConfig(config).build();
                UnifiedJedis one = redis.server().newClient(Duration.ofSeconds(2));
                UnifiedJedis two = redis.server().newClient(Duration.ofSeconds(2))) {
            assertThatThrownBy(() -> Turnstile.builder(failover).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("redis.clients.jedis.MultiDbClient")
                    .hasMessageContaining("Pass a client for one deployment: a RedisClient");
            assertThatThrownBy(
                            () -> Redlock.builder(List.of(one, two, failover)).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("redis.clients.jedis.MultiDbClient");
        }
    }

    private static String address(RedisServer server) {
        return server.hostAndPort().toString();
    }

    private static RedisVersion version(RedisServer server) {
        try (var jedis = server.connect()) {
            return RedisVersion.fromInfo(jedis.info("server"));
        }
    }
}
