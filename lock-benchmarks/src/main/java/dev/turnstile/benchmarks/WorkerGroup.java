package dev.turnstile.benchmarks;

import dev.turnstile.benchmarks.Scenario.Contender;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Threads that acquire and release one contender in a loop until stopped, counting grants and
 * keeping every acquire's latency.
 */
final class WorkerGroup {

    private final AtomicBoolean running = new AtomicBoolean(true);
    private final LongAdder granted = new LongAdder();
    private final List<Thread> workers = new ArrayList<>();
    private final long[][] latencies;

    WorkerGroup(Contender contender, int threads) {
        this.latencies = new long[threads][];
        for (int t = 0; t < threads; t++) {
            int index = t;
            this.workers.add(new Thread(() -> {
                long[] samples = new long[1 << 16];
                int size = 0;
                try {
                    while (this.running.get()) {
                        long begin = System.nanoTime();
                        Object handle = contender.acquire();
                        long took = System.nanoTime() - begin;
                        if (size == samples.length) {
                            samples = Arrays.copyOf(samples, size * 2);
                        }
                        samples[size++] = took;
                        if (handle != null) {
                            this.granted.increment();
                            contender.release(handle);
                        }
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                } finally {
                    this.latencies[index] = Arrays.copyOf(samples, size);
                }
            }));
        }
    }

    void start() {
        this.workers.forEach(Thread::start);
    }

    /** Returns how many grants the threads counted so far. */
    long granted() {
        return this.granted.sum();
    }

    /** Stops the threads, waits for them, and returns how many grants they counted. */
    long stop() throws InterruptedException {
        this.running.set(false);
        for (Thread worker : this.workers) {
            worker.join();
        }
        return this.granted.sum();
    }

    /** The {@code quantile} of every acquire's latency, in microseconds; call after {@link #stop()}. */
    double latencyMicros(double quantile) {
        long[] all = Arrays.stream(this.latencies)
                .flatMapToLong(Arrays::stream)
                .sorted()
                .toArray();
        return all.length == 0 ? Double.NaN : all[Math.min(all.length - 1, (int) (quantile * all.length))] / 1e3;
    }
}
