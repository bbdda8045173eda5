package dev.turnstile.redis.history;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LockFactory;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.history.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The work of one process in a history run: {@code threads} threads take the primitive, hold it for
 * a random moment and release it, over and over until the run's end, recording every acquisition
 * in the history. Leases are the default lease, renewed by the watchdog, so a hold is lost only
 * through a fault.
 */
final class Workload {

    static final String LOCK_NAME = "history";
    static final List<String> MULTI_NAMES = List.of("history:a", "history:b");

    private final String process;
    private final Primitive primitive;
    private final LockFactory locks;
    private final History history;
    private final Duration wait;
    private final long maxWorkNanos;

    Workload(String process, Primitive primitive, LockFactory locks, History history, Duration wait, Duration maxWork) {
        this.process = process;
        this.primitive = primitive;
        this.locks = locks;
        this.history = history;
        this.wait = wait;
        this.maxWorkNanos = maxWork.toNanos();
    }

    /** Runs {@code threads} threads until {@code endNanos} ({@link System#nanoTime()}) and joins them. */
    void run(int threads, long endNanos) throws InterruptedException {
        List<Thread> started = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread thread = new Thread(() -> loop(endNanos), this.process + "-" + i);
            thread.setDaemon(true);
            thread.start();
            started.add(thread);
        }
        for (Thread thread : started) {
            thread.join();
        }
    }

    private void loop(long endNanos) {
        while (System.nanoTime() < endNanos) {
            once();
        }
    }

    /** One acquisition, hold and release, recorded. */
    void once() {
        List<String> names = names();
        List<History.Recording> recordings = new ArrayList<>();
        for (String name : names) {
            recordings.add(
                    this.history.begin(this.process, this.primitive.name(), name, this.primitive.limit, this.wait));
        }
        Optional<? extends Lease> acquired;
        try {
            acquired = acquire(names);
        } catch (RuntimeException e) {
            recordings.forEach(History.Recording::failed);
            // A failed acquisition (Redis unreachable) is retried after a moment, as an application would.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            return;
        }
        if (acquired.isEmpty()) {
            recordings.forEach(History.Recording::refused);
            return;
        }
        Lease lease = acquired.get();
        for (int i = 0; i < names.size(); i++) {
            recordings.get(i).granted(lease.fencingTokens().get(names.get(i)));
        }
        lease.onLost(event -> recordings.forEach(r -> r.lost(event.overdue())));
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(this.maxWorkNanos + 1));
        try {
            History.releaseAll(recordings, lease::release);
        } catch (RuntimeException e) {
            // Redis unreachable at the release: recorded as a reported loss; the grant expires by its lease.
        }
    }

    private List<String> names() {
        if (this.primitive != Primitive.MULTI_LOCK) {
            return List.of(LOCK_NAME);
        }
        return switch (ThreadLocalRandom.current().nextInt(3)) {
            case 0 -> List.of(MULTI_NAMES.get(0));
            case 1 -> List.of(MULTI_NAMES.get(1));
            default -> MULTI_NAMES;
        };
    }

    private Optional<? extends Lease> acquire(List<String> names) {
        if (this.primitive.isSemaphore()) {
            Turnstile turnstile = (Turnstile) this.locks;
            var semaphore = turnstile.semaphore(LOCK_NAME, this.primitive.limit);
            if (this.primitive == Primitive.FAIR_SEMAPHORE) {
                semaphore = semaphore.fair();
            }
            return semaphore.tryAcquire(this.wait, null);
        }
        return names.size() == 1
                ? this.locks.lock(names.get(0)).tryAcquire(this.wait, null)
                : this.locks.lock(names).tryAcquire(this.wait, null);
    }
}
