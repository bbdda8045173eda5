package dev.turnstile.benchmarks;

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
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.UnifiedJedis;

/**
 * What each deployment costs per lock: uncontended acquire + release latency on one thread, on
 * real servers started for the run (all on this machine, so the network is loopback): one server,
 * a 3+3 cluster, a Sentinel-managed master with one replica (with and without {@code WAIT}), and
 * Redlock over five masters, beside Redisson's {@code RedissonRedLock} over the same five (deprecated
 * in Redisson, still shipped). Writes {@code docs/benchmarks/deployments.md}.
 */
public final class DeploymentLatency {

    private static final Duration RUN = Duration.ofSeconds(2);
    private static final int TRIALS = 3;

    private DeploymentLatency() {}

    /** A row of the table: an acquire and its release, timed in each trial. */
    private record Row(String deployment, Runnable cycle, List<long[]> trials) {

        Row(String deployment, Runnable cycle) {
            this(deployment, cycle, new ArrayList<>());
        }
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        List<AutoCloseable> open = new ArrayList<>();
        try {
            List<Row> rows = rows(open);
            // Trials interleaved: every row runs once per trial, so a slow moment of the machine
            // lands on one trial of each row rather than on all trials of one.
            for (Row row : rows) {
                warmUp(row.cycle());
            }
            for (int trial = 0; trial < TRIALS; trial++) {
                for (Row row : rows) {
                    row.trials().add(time(row.cycle()));
                }
            }
            double oneServer = median(rows.get(0)).rate;
            List<String> lines = new ArrayList<>();
            for (Row row : rows) {
                Trial median = median(row);
                lines.add(String.format(
                        Locale.ROOT,
                        "| %s | %,.0f | %.2f× | %.0f | %.0f |",
                        row.deployment(),
                        median.rate,
                        median.rate / oneServer,
                        median.p50Micros,
                        median.p99Micros));
            }
            String table = "Uncontended acquire + release on one thread, " + TRIALS + " interleaved trials of "
                    + RUN.toSeconds() + " s per row, the median trial (by throughput) shown; all servers on this"
                    + " machine (" + Runtime.getRuntime().availableProcessors() + " cores):\n\n"
                    + "| deployment | acquire + release / s | × one server | p50 µs | p99 µs |\n"
                    + "|---|---:|---:|---:|---:|\n"
                    + String.join("\n", lines) + "\n";
            System.out.println(table);
            Path out = Path.of(args.length > 0 ? args[0] : "docs/benchmarks");
            Files.createDirectories(out);
            Provenance.write(out.resolve("deployments.md"), Provenance.command(DeploymentLatency.class), table);
        } finally {
            java.util.Collections.reverse(open);
            for (AutoCloseable each : open) {
                each.close();
            }
        }
    }

    /** Starts every deployment (closed through {@code open}) and returns its rows, one server first. */
    private static List<Row> rows(List<AutoCloseable> open) {
        List<Row> rows = new ArrayList<>();
        RedisServer server = add(open, RedisServer.start());
        UnifiedJedis client = add(open, server.newClient(Duration.ofSeconds(2)));
        Turnstile one = add(open, Turnstile.builder(client).build());
        rows.add(new Row(
                "one server (JedisPooled)",
                () -> one.lock("solo").acquire(Duration.ofSeconds(5), null).release()));

        RedisCluster cluster = add(open, RedisCluster.start(3, 1));
        UnifiedJedis clusterClient = add(open, cluster.newClient(Duration.ofSeconds(2)));
        Turnstile clustered = add(open, Turnstile.builder(clusterClient).build());
        rows.add(new Row(
                "Redis Cluster, 3 masters + 3 replicas (JedisCluster)",
                () -> clustered
                        .lock("solo")
                        .acquire(Duration.ofSeconds(5), null)
                        .release()));

        RedisSentinelGroup group = add(open, RedisSentinelGroup.start(1));
        UnifiedJedis sentineled = add(open, group.newClient(Duration.ofSeconds(2)));
        Turnstile plain = add(open, Turnstile.builder(sentineled).build());
        Turnstile waiting = add(
                open,
                Turnstile.builder(sentineled)
                        .minReplicas(1, Duration.ofMillis(500))
                        .build());
        rows.add(new Row(
                "Sentinel, master + 1 replica (JedisSentineled)",
                () -> plain.lock("solo").acquire(Duration.ofSeconds(5), null).release()));
        rows.add(new Row(
                "Sentinel, master + 1 replica, minReplicas = 1 (WAIT)",
                () -> waiting.lock("solo-wait")
                        .acquire(Duration.ofSeconds(5), null)
                        .release()));

        List<UnifiedJedis> clients = new ArrayList<>();
        List<RLock> locks = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            RedisServer master = add(open, RedisServer.start());
            clients.add(add(open, master.newClient(Duration.ofSeconds(2))));
            RedissonClient redisson = redisson(master);
            open.add(redisson::shutdown);
            locks.add(redisson.getLock("redisson-solo"));
        }
        Redlock redlock = add(open, Redlock.of(clients));
        rows.add(new Row(
                "Redlock, 5 independent masters",
                () -> redlock.lock("solo")
                        .acquire(Duration.ofSeconds(5), Duration.ofSeconds(30))
                        .release()));
        @SuppressWarnings("deprecation")
        RedissonRedLock redLock = new RedissonRedLock(locks.toArray(RLock[]::new));
        rows.add(new Row("Redisson RedissonRedLock, the same 5 masters", () -> {
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
        return rows;
    }

    private static <T extends AutoCloseable> T add(List<AutoCloseable> open, T resource) {
        open.add(resource);
        return resource;
    }

    private static void warmUp(Runnable cycle) {
        for (long end = System.nanoTime() + Duration.ofSeconds(1).toNanos(); System.nanoTime() < end; ) {
            cycle.run();
        }
    }

    /** One trial of {@code cycle}: the run's cycle times, in ns, and (last) the run's length. */
    private static long[] time(Runnable cycle) {
        long[] samples = new long[1 << 20];
        int count = 0;
        long start = System.nanoTime();
        long end = start + RUN.toNanos();
        while (System.nanoTime() < end && count < samples.length - 1) {
            long begin = System.nanoTime();
            cycle.run();
            samples[count++] = System.nanoTime() - begin;
        }
        long[] trial = Arrays.copyOf(samples, count + 1);
        trial[count] = System.nanoTime() - start;
        return trial;
    }

    private record Trial(double rate, double p50Micros, double p99Micros) {}

    /** The row's trial of median throughput, with its own percentiles. */
    private static Trial median(Row row) {
        List<Trial> trials = new ArrayList<>();
        for (long[] samples : row.trials()) {
            int count = samples.length - 1;
            long[] sorted = Arrays.copyOf(samples, count);
            Arrays.sort(sorted);
            trials.add(new Trial(
                    count / (samples[count] / 1e9),
                    sorted[count / 2] / 1e3,
                    sorted[Math.min(count - 1, (int) (count * 0.99))] / 1e3));
        }
        trials.sort(java.util.Comparator.comparingDouble(Trial::rate));
        return trials.get(trials.size() / 2);
    }

    private static RedissonClient redisson(RedisServer master) {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + master.port());
        return Redisson.create(config);
    }
}
