package dev.turnstile.redis.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

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

    /**
     * How often the deadline thread hands the deferred tasks to their scheduler. A task due more
     * than {@link #DEFER_BEYOND_NANOS} ahead (a renewal or deadline check of a lease of a few seconds
     * or more) waits here instead of going into a scheduler's queue at once: most leases end long
     * before, and a task cancelled while deferred never touches the scheduler (whose queue is one
     * lock every acquiring and releasing thread would otherwise take twice).
     */
    private static final long DRAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** Tasks due later than this are deferred: ten drains of slack before they are due. */
    static final long DEFER_BEYOND_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** Tasks due later than {@link #DEFER_BEYOND_NANOS}, not yet handed to their scheduler. */
    private final ConcurrentLinkedQueue<Deferred> deferred = new ConcurrentLinkedQueue<>();

    /** Creates {@code threads} daemon scheduler threads, one deadline thread, and the I/O pool. */
    public Watchdog(int threads) {
        this.scheduler = daemonScheduler(threads, "turnstile-watchdog-");
        this.deadlines = daemonScheduler(1, "turnstile-deadline-");
        this.ticks = List.of(
                this.scheduler.scheduleAtFixedRate(() -> {}, TICK_NANOS, TICK_NANOS, TimeUnit.NANOSECONDS),
                this.deadlines.scheduleAtFixedRate(this::drain, DRAIN_NANOS, DRAIN_NANOS, TimeUnit.NANOSECONDS));
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

    private ScheduledFuture<?> schedule(ScheduledThreadPoolExecutor on, Runnable task, long delayNanos) {
        if (delayNanos > DEFER_BEYOND_NANOS) {
            if (on.isShutdown()) {
                throw closed(null);
            }
            Deferred later = new Deferred(on, task, System.nanoTime() + delayNanos);
            this.deferred.add(later);
            return later;
        }
        try {
            return on.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            throw closed(e);
        }
    }

    private static IllegalStateException closed(@Nullable RejectedExecutionException cause) {
        return new IllegalStateException("This Turnstile is closed: it renews and watches no more leases", cause);
    }

    /** On the deadline thread: hands every deferred task still wanted to its scheduler. */
    private void drain() {
        for (Deferred task = this.deferred.poll(); task != null; task = this.deferred.poll()) {
            task.submit();
        }
    }

    /** Returns the number of scheduled renewals and deadline checks (for tests and metrics). */
    public int scheduledTasks() {
        return (int) (Stream.concat(this.scheduler.getQueue().stream(), this.deadlines.getQueue().stream())
                        .filter(task -> !this.ticks.contains(task))
                        .count()
                + this.deferred.stream().filter(Deferred::pending).count());
    }

    /** Returns whether the scheduler still accepts work. */
    public boolean isRunning() {
        return !this.scheduler.isShutdown();
    }

    /**
     * A task due later than the next drains: it waits in {@link #deferred} until the deadline thread
     * submits it to its scheduler, unless it is cancelled first. Cancelling it is one compare-and-set;
     * once submitted, cancelling it cancels the scheduler's task.
     */
    private static final class Deferred implements ScheduledFuture<Object> {

        private static final Object CANCELLED = new Object();
        private static final VarHandle STATE;

        static {
            try {
                STATE = MethodHandles.lookup().findVarHandle(Deferred.class, "state", Object.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final ScheduledThreadPoolExecutor on;
        private final Runnable task;
        private final long dueNanos;
        /** null while deferred, then {@link #CANCELLED} or the scheduler's task. */
        private volatile @Nullable Object state;

        Deferred(ScheduledThreadPoolExecutor on, Runnable task, long dueNanos) {
            this.on = on;
            this.task = task;
            this.dueNanos = dueNanos;
        }

        boolean pending() {
            return this.state == null;
        }

        /** Submits the task to its scheduler, unless it was cancelled (or the scheduler closed). */
        void submit() {
            if (this.state != null) {
                return;
            }
            ScheduledFuture<?> scheduled;
            try {
                scheduled = this.on.schedule(
                        this.task, Math.max(0, this.dueNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException closed) {
                STATE.compareAndSet(this, null, CANCELLED);
                return;
            }
            if (!STATE.compareAndSet(this, null, scheduled)) {
                scheduled.cancel(false); // cancelled meanwhile
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            while (true) {
                Object current = this.state;
                if (current == null) {
                    if (STATE.compareAndSet(this, null, CANCELLED)) {
                        return true;
                    }
                } else {
                    return current != CANCELLED && ((Future<?>) current).cancel(mayInterruptIfRunning);
                }
            }
        }

        @Override
        public boolean isCancelled() {
            Object current = this.state;
            return current == CANCELLED || (current instanceof Future<?> future && future.isCancelled());
        }

        @Override
        public boolean isDone() {
            Object current = this.state;
            return current == CANCELLED || (current instanceof Future<?> future && future.isDone());
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(this.dueNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }

        /** Not used: the watchdog's callers only cancel. */
        @Override
        public Object get() {
            throw new UnsupportedOperationException("a watchdog task has no result");
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException("a watchdog task has no result");
        }
    }

    /** Stops renewing: leases still held expire in Redis after their lease time. */
    @Override
    public void close() {
        this.deferred.forEach(task -> task.cancel(false));
        this.deferred.clear();
        this.scheduler.shutdownNow();
        this.deadlines.shutdownNow();
        this.io.shutdownNow();
    }
}
