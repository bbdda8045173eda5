package dev.turnstile.redis.internal;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The schedulers per {@code Turnstile} that renew watchdog leases and notice leases whose time ran
 * out. The scheduler threads only keep time: each renewal (and other Redis work) runs on a pooled
 * I/O thread of its own, so a renewal stuck on one slow or black-holed server never delays the
 * renewals of leases on healthy servers. Deadline checks run on a thread of their own that never
 * calls Redis, so a renewal stuck in a socket read (a network partition) cannot delay the moment a
 * lease is found lost. All threads are daemons: a process that dies stops renewing, and its
 * leases expire in Redis after their lease time.
 */
final class Watchdog implements AutoCloseable {

    private final ScheduledThreadPoolExecutor scheduler;
    private final ScheduledThreadPoolExecutor deadlines;
    /** Grows with the Redis calls in flight at once, which one stuck server cannot starve. */
    private final ExecutorService io;
    /** The no-op ticks, left out of {@link #scheduledTasks()}. */
    private final List<ScheduledFuture<?>> ticks;

    /**
     * How often an idle scheduler thread wakes up. A no-op task at this rate keeps the head of each
     * queue at most this far away, so scheduling a later deadline or renewal (the usual case: leases
     * of a second or more) never has to wake the thread: acquiring costs no context switch.
     */
    private static final long TICK_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** Creates {@code threads} daemon scheduler threads, one deadline thread, and the I/O pool. */
    public Watchdog(int threads) {
        this.scheduler = daemonScheduler(threads, "turnstile-watchdog-");
        this.deadlines = daemonScheduler(1, "turnstile-deadline-");
        this.ticks = List.of(
                this.scheduler.scheduleAtFixedRate(() -> {}, TICK_NANOS, TICK_NANOS, TimeUnit.NANOSECONDS),
                this.deadlines.scheduleAtFixedRate(() -> {}, TICK_NANOS, TICK_NANOS, TimeUnit.NANOSECONDS));
        AtomicInteger io = new AtomicInteger();
        this.io = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "turnstile-watchdog-io-" + io.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    private static ScheduledThreadPoolExecutor daemonScheduler(int threads, String prefix) {
        AtomicInteger count = new AtomicInteger();
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(threads, task -> {
            Thread thread = new Thread(task, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        return scheduler;
    }

    /**
     * Runs {@code task}, which may call Redis, once after {@code delayNanos} on an I/O thread.
     * Cancelling the returned future before it fires keeps the task from running.
     *
     * @throws IllegalStateException if the watchdog was closed (its {@code Turnstile} is closed)
     */
    public ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        return schedule(this.scheduler, () -> runOnIo(task), delayNanos);
    }

    /** Runs {@code task}, which may call Redis, on an I/O thread; dropped once the watchdog is closed. */
    public void execute(Runnable task) {
        runOnIo(task);
    }

    private void runOnIo(Runnable task) {
        try {
            this.io.execute(task);
        } catch (RejectedExecutionException closed) {
            // closed meanwhile: nothing renews any more
        }
    }

    /**
     * Runs {@code check} once after {@code delayNanos} on the deadline thread. The check must not
     * call Redis or block: every lease's deadline is checked on this one thread.
     *
     * @throws IllegalStateException if the watchdog was closed (its {@code Turnstile} is closed)
     */
    public ScheduledFuture<?> scheduleDeadline(Runnable check, long delayNanos) {
        return schedule(this.deadlines, check, delayNanos);
    }

    private static ScheduledFuture<?> schedule(ScheduledThreadPoolExecutor on, Runnable task, long delayNanos) {
        try {
            return on.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("This Turnstile is closed: it renews and watches no more leases", e);
        }
    }

    /** Returns the number of scheduled renewals and deadline checks (for tests and metrics). */
    public int scheduledTasks() {
        return (int) Stream.concat(this.scheduler.getQueue().stream(), this.deadlines.getQueue().stream())
                .filter(task -> !this.ticks.contains(task))
                .count();
    }

    /** Returns whether the scheduler still accepts work. */
    public boolean isRunning() {
        return !this.scheduler.isShutdown();
    }

    /** Stops renewing: leases still held expire in Redis after their lease time. */
    @Override
    public void close() {
        this.scheduler.shutdownNow();
        this.deadlines.shutdownNow();
        this.io.shutdownNow();
    }
}
