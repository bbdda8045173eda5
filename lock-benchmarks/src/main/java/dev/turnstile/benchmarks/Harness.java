package dev.turnstile.benchmarks;

import dev.turnstile.test.redis.RedisServer;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs the scenarios of a group side by side: a warm-up each, then several timed trials in turns,
 * keeping each scenario's median trial by throughput. Commands come from the server's {@code INFO commandstats} over the timed trial only;
 * round trips from the counting client (for contenders that use it) plus the server's SUBSCRIBE
 * and UNSUBSCRIBE calls; client CPU from this JVM's process CPU time, server CPU from the server's
 * main thread ({@code INFO cpu}).
 *
 * @param server the server the contenders use
 * @param client the counting client (round trips)
 * @param warmUp each scenario's warm-up
 * @param trial one timed trial
 * @param trials how many timed trials each scenario runs
 */
record Harness(RedisServer server, CountingRedis client, Duration warmUp, Duration trial, int trials) {

    /**
     * Measures the scenarios of one group side by side: each is warmed up, then the trials run in
     * turns (one trial of each scenario, then the next round), so that a slow spell of the machine
     * hits every contender alike; each scenario's median trial by throughput is kept.
     */
    List<Measurement> measureSideBySide(List<Scenario> group, java.util.function.Predicate<Scenario> countsRoundTrips)
            throws Exception {
        for (Scenario scenario : group) {
            run(scenario, this.warmUp, countsRoundTrips.test(scenario));
        }
        List<List<Measurement>> trialsOf = new ArrayList<>();
        group.forEach(scenario -> trialsOf.add(new ArrayList<>()));
        for (int i = 0; i < this.trials; i++) {
            for (int s = 0; s < group.size(); s++) {
                trialsOf.get(s).add(run(group.get(s), this.trial, countsRoundTrips.test(group.get(s))));
            }
        }
        List<Measurement> medians = new ArrayList<>();
        for (List<Measurement> results : trialsOf) {
            List<Double> rounds =
                    results.stream().map(Measurement::acquisitionsPerSecond).toList();
            results.sort((a, b) -> Double.compare(a.acquisitionsPerSecond(), b.acquisitionsPerSecond()));
            medians.add(results.get(results.size() / 2).withRounds(rounds));
        }
        return medians;
    }

    private Measurement run(Scenario scenario, Duration duration, boolean countsRoundTrips) throws Exception {
        int threads = scenario.threads();
        long[] granted = new long[threads];
        long[][] acquireLatencies = new long[threads][];
        long[][] handoffs = new long[threads][];
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong lastRelease = new AtomicLong(Long.MIN_VALUE);
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        Exception[] failure = new Exception[1];
        for (int t = 0; t < threads; t++) {
            int index = t;
            Scenario.Contender contender = scenario.contenders().apply(t);
            Thread worker = new Thread(() -> {
                Recorder acquires = new Recorder();
                Recorder handoff = new Recorder();
                ready.countDown();
                try {
                    start.await();
                    while (running.get()) {
                        long begin = System.nanoTime();
                        Object handle = contender.acquire();
                        long acquired = System.nanoTime();
                        acquires.record(acquired - begin);
                        if (handle == null) {
                            continue;
                        }
                        granted[index]++;
                        long released = lastRelease.get();
                        if (scenario.contended() && released > begin) {
                            handoff.record(acquired - released);
                        }
                        lastRelease.set(System.nanoTime());
                        contender.release(handle);
                    }
                } catch (Exception e) {
                    failure[0] = e;
                }
                acquireLatencies[index] = acquires.toArray();
                handoffs[index] = handoff.toArray();
            });
            workers.add(worker);
            worker.start();
        }
        ready.await();
        this.server.resetStats();
        long roundTripsBefore = this.client.roundTrips();
        long cpuBefore = processCpuNanos();
        double serverCpuBefore = this.server.mainThreadCpuSeconds();
        long begin = System.nanoTime();
        start.countDown();
        Thread.sleep(duration.toMillis());
        running.set(false);
        for (Thread worker : workers) {
            worker.join();
        }
        long elapsed = System.nanoTime() - begin;
        long cpu = processCpuNanos() - cpuBefore;
        double serverCpu = this.server.mainThreadCpuSeconds() - serverCpuBefore;
        if (failure[0] != null) {
            throw new IllegalStateException(scenario.contender() + " failed", failure[0]);
        }
        Map<String, Long> counts = this.server.commandCounts();
        long total = Arrays.stream(granted).sum();
        long roundTrips = this.client.roundTrips()
                - roundTripsBefore
                + counts.getOrDefault("subscribe", 0L)
                + counts.getOrDefault("unsubscribe", 0L);
        long[] latencies = sortedUnion(acquireLatencies);
        long[] handoff = sortedUnion(handoffs);
        return new Measurement(
                scenario,
                total / (elapsed / 1e9),
                total == 0 || !countsRoundTrips ? Double.NaN : (double) roundTrips / total,
                total == 0 ? Double.NaN : (double) commands(counts) / total,
                percentile(latencies, 0.50) / 1e3,
                percentile(latencies, 0.99) / 1e3,
                scenario.contended() ? percentile(handoff, 0.50) / 1e3 : Double.NaN,
                total == 0 ? Double.NaN : cpu / 1e3 / total,
                total == 0 ? Double.NaN : serverCpu * 1e6 / total,
                List.of(total / (elapsed / 1e9)));
    }

    /** Every command but the harness's own (INFO, CONFIG). */
    static long commands(Map<String, Long> counts) {
        return counts.entrySet().stream()
                .filter(entry ->
                        !entry.getKey().startsWith("info") && !entry.getKey().startsWith("config"))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static long[] sortedUnion(long[][] parts) {
        return Arrays.stream(parts).flatMapToLong(Arrays::stream).sorted().toArray();
    }

    private static double percentile(long[] sorted, double quantile) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) (quantile * sorted.length))];
    }

    /** Keeps every sample of one thread. */
    private static final class Recorder {
        private long[] values = new long[1 << 14];
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
