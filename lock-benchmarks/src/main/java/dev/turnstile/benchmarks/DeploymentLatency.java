package dev.turnstile.benchmarks;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.test.redis.RedisCluster;
import dev.turnstile.test.redis.RedisSentinelGroup;
import dev.turnstile.test.redis.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.JedisSentineled;

/**
 * What each deployment costs per lock: uncontended acquire + release latency on one thread, on
 * real servers started for the run (all on this machine, so the network is loopback): one server,
 * a 3+3 cluster, a Sentinel-managed master with one replica (with and without {@code WAIT}), and
 * Redlock over five masters, beside Redisson's {@code RedissonRedLock} over the same five (deprecated
 * in Redisson, still shipped). Writes {@code docs/benchmarks/deployments.md}.
 */
public final class DeploymentLatency {

    private static final Duration RUN = Duration.ofSeconds(3);

    private DeploymentLatency() {}

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        List<String> rows = new ArrayList<>();
        try (RedisServer server = RedisServer.start();
                JedisPooled client = server.newClient(Duration.ofSeconds(2));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            rows.add(
                    row("one server (JedisPooled)", () -> turnstile.lock("solo").acquire(Duration.ofSeconds(5), null)));
        }
        try (RedisCluster cluster = RedisCluster.start(3, 1);
                JedisCluster client = cluster.newClient(Duration.ofSeconds(2));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            rows.add(row(
                    "Redis Cluster, 3 masters + 3 replicas (JedisCluster)",
                    () -> turnstile.lock("solo").acquire(Duration.ofSeconds(5), null)));
        }
        try (RedisSentinelGroup group = RedisSentinelGroup.start(1);
                JedisSentineled client = group.newClient(Duration.ofSeconds(2));
                Turnstile plain = Turnstile.builder(client).build();
                Turnstile waiting = Turnstile.builder(client)
                        .minReplicas(1, Duration.ofMillis(500))
                        .build()) {
            rows.add(row(
                    "Sentinel, master + 1 replica (JedisSentineled)",
                    () -> plain.lock("solo").acquire(Duration.ofSeconds(5), null)));
            rows.add(row(
                    "Sentinel, master + 1 replica, minReplicas = 1 (WAIT)",
                    () -> waiting.lock("solo-wait").acquire(Duration.ofSeconds(5), null)));
        }
        List<RedisServer> masters = new ArrayList<>();
        List<JedisPooled> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 5; i++) {
                masters.add(RedisServer.start());
                clients.add(masters.get(i).newClient(Duration.ofSeconds(2)));
            }
            try (Redlock redlock = Redlock.of(clients)) {
                rows.add(row(
                        "Redlock, 5 independent masters",
                        () -> redlock.lock("solo").acquire(Duration.ofSeconds(5), Duration.ofSeconds(30))));
            }
            List<RedissonClient> redissons = new ArrayList<>();
            try {
                for (RedisServer master : masters) {
                    redissons.add(redisson(master));
                }
                RLock[] locks = redissons.stream()
                        .map(redisson -> redisson.getLock("redisson-solo"))
                        .toArray(RLock[]::new);
                @SuppressWarnings("deprecation")
                RedissonRedLock redLock = new RedissonRedLock(locks);
                rows.add(cycleRow("Redisson RedissonRedLock, the same 5 masters", () -> {
                    try {
                        if (!redLock.tryLock(5, 30, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("RedissonRedLock not acquired within 5 s");
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                    redLock.unlock();
                }));
            } finally {
                redissons.forEach(RedissonClient::shutdown);
            }
        } finally {
            clients.forEach(JedisPooled::close);
            masters.forEach(RedisServer::close);
        }
        String table =
                "Uncontended acquire + release on one thread, " + RUN.toSeconds() + " s per row, all servers on this"
                        + " machine (" + Runtime.getRuntime().availableProcessors() + " cores):\n\n"
                        + "| deployment | acquire + release / s | p50 µs | p99 µs |\n|---|---:|---:|---:|\n"
                        + String.join("\n", rows) + "\n";
        System.out.println(table);
        Path out = Path.of(args.length > 0 ? args[0] : "docs/benchmarks");
        Files.createDirectories(out);
        Files.writeString(out.resolve("deployments.md"), table);
    }

    private static String row(String deployment, Supplier<Lease> acquire) {
        return cycleRow(deployment, () -> acquire.get().release());
    }

    /** One row: {@code cycle} (an acquire and its release) warmed up for 1 s, then timed for the run. */
    private static String cycleRow(String deployment, Runnable cycle) {
        for (long end = System.nanoTime() + Duration.ofSeconds(1).toNanos(); System.nanoTime() < end; ) {
            cycle.run();
        }
        long[] samples = new long[1 << 20];
        int count = 0;
        long start = System.nanoTime();
        long end = start + RUN.toNanos();
        while (System.nanoTime() < end && count < samples.length) {
            long begin = System.nanoTime();
            cycle.run();
            samples[count++] = System.nanoTime() - begin;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long[] sorted = Arrays.copyOf(samples, count);
        Arrays.sort(sorted);
        String row = String.format(
                Locale.ROOT,
                "| %s | %,.0f | %.0f | %.0f |",
                deployment,
                count / seconds,
                sorted[count / 2] / 1e3,
                sorted[Math.min(count - 1, (int) (count * 0.99))] / 1e3);
        System.out.println(row);
        return row;
    }

    private static RedissonClient redisson(RedisServer master) {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + master.port());
        return Redisson.create(config);
    }
}
