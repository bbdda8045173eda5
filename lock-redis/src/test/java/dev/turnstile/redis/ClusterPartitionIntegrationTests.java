package dev.turnstile.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.LeaseLostEvent.Reason;
import dev.turnstile.test.redis.PartitionProxy;
import dev.turnstile.test.redis.RedisClients;
import dev.turnstile.test.redis.RedisCluster;
import dev.turnstile.test.redis.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * On a 3+3 cluster, a client cut off from the one master that owns its lock (every other node
 * still reachable) hears of the loss at the lease's deadline, and its late release after the heal
 * leaves the new owner's key alone.
 */
class ClusterPartitionIntegrationTests {

    @Test
    void aClientCutOffFromItsLocksMasterHearsOfTheLossAndLeavesTheNewOwnerAlone() {
        RedisCluster cluster = SharedCluster.cluster();
        String name = "cut-off-job";
        HostAndPort owner = masterOf(cluster, JedisClusterCRC16.getSlot(name));
        List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
        try (PartitionProxy proxy = PartitionProxy.to(owner);
                UnifiedJedis cutOffClient = RedisClients.cluster(
                        cluster.seeds(),
                        DefaultJedisClientConfig.builder()
                                .socketTimeoutMillis(8000)
                                .hostAndPortMapper(
                                        node -> node.getPort() == owner.getPort() ? proxy.hostAndPort() : node)
                                .build(),
                        5);
                Turnstile cutOff = Turnstile.builder(cutOffClient)
                        .defaultLease(Duration.ofSeconds(1))
                        .build();
                UnifiedJedis directClient = SharedCluster.newClient();
                Turnstile direct = Turnstile.builder(directClient).build()) {
            Lease held = cutOff.lock(name).acquire(Duration.ZERO, null);
            held.onLost(lost::add);
            await().during(Duration.ofMillis(1500))
                    .atMost(Duration.ofSeconds(3))
                    .until(held::isHeld);

            proxy.partition();
            Lease next = await().atMost(Duration.ofSeconds(5))
                    .until(
                            () -> direct.lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(30)),
                            Optional::isPresent)
                    .orElseThrow();
            assertThat(held.isHeld()).isFalse();
            await().atMost(Duration.ofSeconds(1)).until(() -> lost.size() == 1);
            assertThat(proxy.isPartitioned()).isTrue();
            assertThat(lost.get(0).reason()).isEqualTo(Reason.RENEWAL_MISSED);

            String ownerToken = directClient.get("turnstile:lock:{" + name + "}");
            proxy.heal();
            assertThat(held.release()).isFalse();
            await().during(Duration.ofMillis(1200))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> lost.size() == 1);
            assertThat(directClient.get("turnstile:lock:{" + name + "}")).isEqualTo(ownerToken);
            next.extend(Duration.ofSeconds(30));
            assertThat(next.release()).isTrue();
        }
    }

    @Test
    void leasesOnHealthyMastersKeepRenewingWhileAnotherMasterIsFrozen() {
        try (RedisCluster cluster = RedisCluster.start(3, 0, "--cluster-require-full-coverage", "no");
                UnifiedJedis client = RedisClients.cluster(
                        cluster.seeds(),
                        DefaultJedisClientConfig.builder()
                                .socketTimeoutMillis(6000)
                                .build(),
                        1);
                Turnstile turnstile = Turnstile.builder(client)
                        .defaultLease(Duration.ofSeconds(1))
                        .build()) {
            RedisServer frozen = cluster.masters().get(0);
            List<Lease> healthy = new java.util.ArrayList<>();
            List<Lease> stuck = new java.util.ArrayList<>();
            List<LeaseLostEvent> healthyLost = new CopyOnWriteArrayList<>();
            for (int i = 0; i < 30; i++) {
                String name = "lease-" + i;
                Lease lease = turnstile.lock(name).acquire(Duration.ZERO, null);
                if (masterOf(cluster, JedisClusterCRC16.getSlot(name)).equals(frozen.hostAndPort())) {
                    stuck.add(lease);
                } else {
                    healthy.add(lease);
                    lease.onLost(healthyLost::add);
                }
            }
            assertThat(stuck).isNotEmpty();
            assertThat(healthy).hasSizeGreaterThan(stuck.size());

            frozen.pause();
            try {
                // 2.5 leases: each renewal sent to the frozen master blocks in a socket read.
                await().during(Duration.ofMillis(2500))
                        .atMost(Duration.ofSeconds(4))
                        .until(() -> healthy.stream().allMatch(Lease::isHeld));
                assertThat(stuck).noneMatch(Lease::isHeld);
            } finally {
                frozen.resume();
            }
            assertThat(healthyLost).isEmpty();
            healthy.forEach(lease -> assertThat(lease.release()).isTrue());
        }
    }

    @Test
    void aVersionProbeThatFoundNoNodeIsTriedAgainLater() {
        RedisCluster cluster = SharedCluster.cluster();
        org.junit.jupiter.api.Assumptions.assumeTrue(
                cluster.masters().get(0).version().atLeast(7, 0),
                "only a Redis 7+ cluster shows the probe's second answer (sharded pub/sub)");
        List<PartitionProxy> proxies = new java.util.ArrayList<>();
        java.util.Map<Integer, HostAndPort> routes = new java.util.HashMap<>();
        for (HostAndPort node : cluster.seeds()) {
            PartitionProxy proxy = PartitionProxy.to(node);
            proxies.add(proxy);
            routes.put(node.getPort(), proxy.hostAndPort());
        }
        try (UnifiedJedis client = RedisClients.cluster(
                        cluster.seeds(),
                        DefaultJedisClientConfig.builder()
                                .socketTimeoutMillis(300)
                                .hostAndPortMapper(node -> routes.getOrDefault(node.getPort(), node))
                                .build(),
                        2);
                Turnstile turnstile = Turnstile.builder(client).build()) {
            proxies.forEach(PartitionProxy::partition);
            assertThat(turnstile.diagnostics().shardedSignals())
                    .as("no node answers: plain pub/sub for now")
                    .isFalse();
            proxies.forEach(PartitionProxy::heal);
            await().atMost(Duration.ofSeconds(10))
                    .alias("probed again once the nodes answer")
                    .until(() -> turnstile.diagnostics().shardedSignals());
        } finally {
            proxies.forEach(PartitionProxy::close);
        }
    }

    private static HostAndPort masterOf(RedisCluster cluster, int slot) {
        for (RedisServer master : cluster.masters()) {
            try (Jedis jedis = master.connect()) {
                for (String line : jedis.clusterNodes().split("\n")) {
                    String[] fields = line.trim().split(" ");
                    if (!fields[2].contains("myself") || !fields[2].contains("master")) {
                        continue;
                    }
                    for (int i = 8; i < fields.length; i++) {
                        String[] range = fields[i].split("-");
                        int from = Integer.parseInt(range[0]);
                        int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
                        if (slot >= from && slot <= to) {
                            return master.hostAndPort();
                        }
                    }
                }
            }
        }
        throw new IllegalStateException("No master owns slot " + slot);
    }
}
