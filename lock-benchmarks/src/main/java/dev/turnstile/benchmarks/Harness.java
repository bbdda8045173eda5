package dev.turnstile.benchmarks;

import dev.turnstile.test.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs scenarios on one thread pool per scenario: a warm-up, then several timed trials; keeps the
 * median trial. Commands per acquisition come from the server's {@code INFO commandstats},
 * counted over the timed trial only.
 */
final class Harness {

    private final RedisServer server;
    private final CountingRedis client;
    private final Duration warmUp;
    private final Duration trial;
    private final int trials;

    Harness(RedisServer server, CountingRedis client, Duration warmUp, Duration trial, int trials) {
        this.server = server;
        this.client = client;
        this.warmUp = warmUp;
        this.trial = trial;
        this.trials = trials;
    }

    Measurement measure(Scenario scenario) throws Exception {
        run(scenario, this.warmUp);
        List<Measurement> results = new ArrayList<>();
        for (int i = 0; i < this.trials; i++) {
            results.add(run(scenario, this.trial));
        }
        results.sort((a, b) -> Double.compare(a.acquisitionsPerSecond(), b.acquisitionsPerSecond()));
        return results.get(results.size() / 2);
    }

    private Measurement run(Scenario scenario, Duration duration) throws Exception {
        int threads = scenario.threads();
        long[] granted = new long[threads];
        long[][] latencies = new long[threads][];
        AtomicBoolean running = new AtomicBoolean(true);
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        Exception[] failure = new Exception[1];
        for (int t = 0; t < threads; t++) {
            int index = t;
            Scenario.Operation operation = scenario.operation().apply(t);
            Thread worker = new Thread(() -> {
                LatencyRecorder recorder = new LatencyRecorder();
                ready.countDown();
                try {
                    start.await();
                    while (running.get()) {
                        long begin = System.nanoTime();
                        if (operation.run()) {
                            granted[index]++;
                        }
                        recorder.record(System.nanoTime() - begin);
                    }
                } catch (Exception e) {
                    failure[0] = e;
                }
                latencies[index] = recorder.toArray();
            });
            workers.add(worker);
            worker.start();
        }
        ready.await();
        this.server.resetStats();
        long roundTripsBefore = this.client.roundTrips();
        long begin = System.nanoTime();
        start.countDown();
        Thread.sleep(duration.toMillis());
        running.set(false);
        for (Thread worker : workers) {
            worker.join();
        }
        long elapsed = System.nanoTime() - begin;
        if (failure[0] != null) {
            throw new IllegalStateException(scenario.contender() + " failed", failure[0]);
        }
        Map<String, Long> counts = this.server.commandCounts();
        long commands = commands(counts);
        long roundTrips = this.client.roundTrips()
                - roundTripsBefore
                + counts.getOrDefault("subscribe", 0L)
                + counts.getOrDefault("unsubscribe", 0L);
        long total = Arrays.stream(granted).sum();
        long[] all =
                Arrays.stream(latencies).flatMapToLong(Arrays::stream).sorted().toArray();
        return new Measurement(
                scenario,
                total / (elapsed / 1e9),
                total == 0 ? Double.NaN : (double) roundTrips / total,
                total == 0 ? Double.NaN : (double) commands / total,
                percentile(all, 0.50) / 1e3,
                percentile(all, 0.99) / 1e3);
    }

    /** Every command but the harness's own (INFO, CONFIG) and the pub/sub connection's PING. */
    private static long commands(Map<String, Long> counts) {
        return counts.entrySet().stream()
                .filter(entry ->
                        !entry.getKey().startsWith("info") && !entry.getKey().startsWith("config"))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    private static double percentile(long[] sorted, double quantile) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) (quantile * sorted.length))];
    }

    /** Keeps every latency of one thread (a few million longs at most per trial). */
    private static final class LatencyRecorder {
        private long[] values = new long[1 << 16];
        private int size;

        void record(long nanos) {
            if (this.size == this.values.length) {
                this.values = Arrays.copyOf(this.values, this.size * 2);
            }
            this.values[this.size++] = nanos;
        }

        long[] toArray() {
            return Arrays.copyOf(this.values, this.size);
        }
    }
}
