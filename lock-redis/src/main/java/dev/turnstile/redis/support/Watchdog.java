package dev.turnstile.redis.support;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one scheduler per {@code Turnstile} that renews watchdog leases and notices leases whose
 * time ran out. Its threads are daemons: a process that dies stops renewing, and its leases expire
 * in Redis after their lease time.
 */
public final class Watchdog implements AutoCloseable {

    private final ScheduledThreadPoolExecutor scheduler;

    /** Creates a scheduler with {@code threads} daemon threads. */
    public Watchdog(int threads) {
        AtomicInteger count = new AtomicInteger();
        this.scheduler = new ScheduledThreadPoolExecutor(threads, task -> {
            Thread thread = new Thread(task, "turnstile-watchdog-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.scheduler.setRemoveOnCancelPolicy(true);
    }

    /**
     * Runs {@code task} once after {@code delayNanos}.
     *
     * @throws IllegalStateException if the watchdog was closed (its {@code Turnstile} is closed)
     */
    public ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        try {
            return this.scheduler.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("This Turnstile is closed: it renews and watches no more leases", e);
        }
    }

    /** Returns the number of scheduled renewals and expiry checks (for tests and metrics). */
    public int scheduledTasks() {
        return this.scheduler.getQueue().size();
    }

    /** Returns whether the scheduler still accepts work. */
    public boolean isRunning() {
        return !this.scheduler.isShutdown();
    }

    /** Stops renewing: leases still held expire in Redis after their lease time. */
    @Override
    public void close() {
        this.scheduler.shutdownNow();
    }
}
