package dev.turnstile.redis.internal;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

    private static final Logger log = LoggerFactory.getLogger(Watchdog.class);

    /**
     * How long a {@link #deferDeadline deferred} deadline check may wait for its batch. A lease due
     * later than twice this from its grant has its check deferred, since most leases end well within
     * it: the check then finds the lease ended, or arms itself at the lease's deadline.
     */
    static final long DEFER_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final ScheduledThreadPoolExecutor scheduler;
    private final ScheduledThreadPoolExecutor deadlines;
    /** Grows with the Redis calls in flight at once, which one stuck server cannot starve. */
    private final ExecutorService io;
    /** The no-op ticks, left out of {@link #scheduledTasks()}. */
    private final List<ScheduledFuture<?>> ticks;
    /**
     * Deadline checks waiting for the next batch ({@link #deferDeadline}), in queues a thread picks
     * at random, so that the threads of a busy process do not all append to one.
     */
    private final List<ConcurrentLinkedQueue<Runnable>> deferred;
    /** Whether a batch of deferred checks is scheduled. */
    private final AtomicBoolean batchScheduled = new AtomicBoolean();
    /** The last batch scheduled, left out of {@link #scheduledTasks()}. */
    private volatile @Nullable ScheduledFuture<?> batch;

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
        int queues = Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors()) * 4 - 1) * 2;
        this.deferred = Stream.generate(ConcurrentLinkedQueue<Runnable>::new)
                .limit(queues)
                .toList();
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

    /**
     * Runs {@code check} on the deadline thread within about {@link #DEFER_NANOS}, in one batch with
     * the checks deferred meanwhile: no timer is set and none cancelled per lease. For a check that
     * may run early: a lease's deadline check, which finds its lease ended or arms itself at the
     * deadline.
     *
     * @throws IllegalStateException if the watchdog was closed (its {@code Turnstile} is closed)
     */
    public void deferDeadline(Runnable check) {
        if (this.deadlines.isShutdown()) {
            throw closed(null);
        }
        this.deferred
                .get(ThreadLocalRandom.current().nextInt() & (this.deferred.size() - 1))
                .offer(check);
        // Offered first: a batch that cleared the flag after this read still finds the check.
        if (!this.batchScheduled.get() && this.batchScheduled.compareAndSet(false, true)) {
            this.batch = schedule(this.deadlines, this::runDeferred, DEFER_NANOS);
        }
    }

    private void runDeferred() {
        this.batchScheduled.set(false);
        for (ConcurrentLinkedQueue<Runnable> queue : this.deferred) {
            for (Runnable check = queue.poll(); check != null; check = queue.poll()) {
                if (this.deadlines.isShutdown()) {
                    // Closed meanwhile: nothing is watched any more, as with the timers it dropped.
                    return;
                }
                try {
                    check.run();
                } catch (Throwable e) {
                    // Each check on its own, as each timer was: one that fails stops no other.
                    log.error("A lease's deadline check failed", e);
                }
            }
        }
    }

    private static IllegalStateException closed(@Nullable RejectedExecutionException cause) {
        return new IllegalStateException("This Turnstile is closed: it renews and watches no more leases", cause);
    }

    private static ScheduledFuture<?> schedule(ScheduledThreadPoolExecutor on, Runnable task, long delayNanos) {
        try {
            return on.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            throw closed(e);
        }
    }

    /**
     * Returns the number of scheduled renewals and deadline checks (for tests and metrics); checks
     * {@link #deferDeadline deferred} to a batch (of leases granted in the last few ms) are not counted.
     */
    public int scheduledTasks() {
        ScheduledFuture<?> batch = this.batch;
        return (int) Stream.concat(this.scheduler.getQueue().stream(), this.deadlines.getQueue().stream())
                .filter(task -> !this.ticks.contains(task) && task != batch)
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
        this.deferred.forEach(ConcurrentLinkedQueue::clear);
    }
}
