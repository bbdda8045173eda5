package dev.turnstile.test.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * A real Redis Cluster of {@code masters} masters with {@code replicasPerMaster} replicas each, all
 * {@code redis-server} processes on free loopback ports, built the way an operator would: {@code
 * CLUSTER MEET}, {@code CLUSTER ADDSLOTS}, {@code CLUSTER REPLICATE}. Every node is a {@link
 * RedisServer}, so a test can kill, pause and restart any of them. Closing the cluster reaps them
 * all.
 */
public final class RedisCluster implements AutoCloseable {

    private static final int SLOTS = 16384;

    private final List<RedisServer> masters = new ArrayList<>();
    private final List<RedisServer> replicas = new ArrayList<>();

    private RedisCluster() {}

    /** Starts and forms a cluster; returns once every node reports {@code cluster_state:ok}. */
    public static RedisCluster start(int masters, int replicasPerMaster) {
        return start(masters, replicasPerMaster, new String[0]);
    }

    /**
     * Starts and forms a cluster whose nodes also get {@code arguments} (e.g. {@code
     * "--cluster-require-full-coverage", "no"}, so the other masters keep serving while one is down).
     */
    public static RedisCluster start(int masters, int replicasPerMaster, String... arguments) {
        RedisCluster cluster = new RedisCluster();
        try {
            for (int i = 0; i < masters; i++) {
                cluster.masters.add(node(arguments));
            }
            for (int i = 0; i < masters * replicasPerMaster; i++) {
                cluster.replicas.add(node(arguments));
            }
            cluster.form(replicasPerMaster);
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** Returns the masters, in the order their slot ranges were assigned. */
    public List<RedisServer> masters() {
        return List.copyOf(this.masters);
    }

    /** Returns the replicas; replica i follows master {@code i / replicasPerMaster}. */
    public List<RedisServer> replicas() {
        return List.copyOf(this.replicas);
    }

    /** Returns every node's address, for a cluster client's seed list. */
    public Set<HostAndPort> seeds() {
        Set<HostAndPort> seeds = new LinkedHashSet<>();
        this.masters.forEach(node -> seeds.add(node.hostAndPort()));
        this.replicas.forEach(node -> seeds.add(node.hostAndPort()));
        return seeds;
    }

    /** Returns a new cluster client with the given timeout; the caller closes it. */
    public UnifiedJedis newClient(Duration timeout) {
        return RedisClients.cluster(
                seeds(),
                RedisClients.withProtocol(DefaultJedisClientConfig.builder().timeoutMillis((int) timeout.toMillis()))
                        .build(),
                5);
    }

    /** Waits until every running node reports {@code cluster_state:ok}. */
    public void awaitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (RedisServer node : all()) {
            if (!node.isRunning()) {
                continue;
            }
            while (!clusterInfo(node).contains("cluster_state:ok")) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "Cluster not healthy within " + timeout + " at " + node + ":\n" + clusterInfo(node));
                }
                Polling.pause();
            }
        }
    }

    @Override
    public void close() {
        all().forEach(RedisServer::close);
    }

    private List<RedisServer> all() {
        List<RedisServer> all = new ArrayList<>(this.masters);
        all.addAll(this.replicas);
        return all;
    }

    private static RedisServer node(String... extra) {
        List<String> arguments = new ArrayList<>(List.of(
                "--cluster-enabled", "yes", "--cluster-node-timeout", "1000", "--cluster-config-file", "nodes.conf"));
        arguments.addAll(List.of(extra));
        return RedisServer.builder()
                .ports(RedisServer::freeClusterPort)
                .arguments(arguments.toArray(String[]::new))
                .start();
    }

    private void form(int replicasPerMaster) {
        RedisServer first = this.masters.get(0);
        try (Jedis seed = first.connect()) {
            for (RedisServer node : all()) {
                if (node != first) {
                    seed.clusterMeet("127.0.0.1", node.port());
                }
            }
        }
        int perMaster = SLOTS / this.masters.size();
        for (int i = 0; i < this.masters.size(); i++) {
            int from = i * perMaster;
            int to = i == this.masters.size() - 1 ? SLOTS - 1 : from + perMaster - 1;
            try (Jedis master = this.masters.get(i).connect()) {
                master.clusterAddSlots(IntStream.rangeClosed(from, to).toArray());
            }
        }
        awaitKnown(all().size());
        for (int i = 0; i < this.replicas.size(); i++) {
            String masterId;
            try (Jedis master = this.masters.get(i / replicasPerMaster).connect()) {
                masterId = master.clusterMyId();
            }
            try (Jedis replica = this.replicas.get(i).connect()) {
                replica.clusterReplicate(masterId);
            }
        }
        awaitHealthy(Duration.ofSeconds(30));
    }

    private void awaitKnown(int nodes) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        for (RedisServer node : all()) {
            while (true) {
                try (Jedis jedis = node.connect()) {
                    if (jedis.clusterNodes().lines().count() >= nodes) {
                        break;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Cluster nodes did not meet within 30s");
                }
                Polling.pause();
            }
        }
    }

    private static String clusterInfo(RedisServer node) {
        try (Jedis jedis = node.connect()) {
            return jedis.clusterInfo();
        } catch (RuntimeException e) {
            return "unreachable: " + e.getMessage();
        }
    }
}
