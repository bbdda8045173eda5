package dev.turnstile.benchmarks;

import dev.turnstile.benchmarks.Scenario.Contender;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/** Threads that acquire and release one contender in a loop until stopped, counting grants. */
final class WorkerGroup {

    private final AtomicBoolean running = new AtomicBoolean(true);
    private final LongAdder granted = new LongAdder();
    private final List<Thread> workers = new ArrayList<>();

    WorkerGroup(Contender contender, int threads) {
        for (int t = 0; t < threads; t++) {
            this.workers.add(new Thread(() -> {
                try {
                    while (this.running.get()) {
                        Object handle = contender.acquire();
                        if (handle != null) {
                            this.granted.increment();
                            contender.release(handle);
                        }
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
    }

    void start() {
        this.workers.forEach(Thread::start);
    }

    /** Stops the threads, waits for them, and returns how many grants they counted. */
    long stop() throws InterruptedException {
        this.running.set(false);
        for (Thread worker : this.workers) {
            worker.join();
        }
        return this.granted.sum();
    }
}
