package dev.turnstile.redis.internal;

import java.util.concurrent.ScheduledFuture;
import org.jspecify.annotations.Nullable;

/**
 * The two timers of one {@link ManagedLease}: the renewal chain (or a fixed lease's top-up), run on
 * an I/O thread and allowed to call Redis, and the deadline check, run on the deadline thread and
 * never calling Redis. Only one of each is ever pending, but for the first deadline check of a
 * lease due later than twice {@link Watchdog#DEFER_NANOS}: it is {@link Watchdog#deferDeadline
 * deferred} to a batch run within that time (most leases end sooner, and then cost no timer), and
 * when its lease is still held it arms the timer at the deadline, so the two may overlap for that
 * while. The deadline check tolerates an early or extra run. Once {@link #stop() stopped} (the lease
 * ended) nothing is scheduled again. Not thread-safe: call under the lease's lock.
 */
final class LeaseTimers {

    private final Watchdog watchdog;
    private final Runnable renewal;
    private final Runnable deadlineCheck;
    private @Nullable ScheduledFuture<?> renewalTimer;
    private @Nullable ScheduledFuture<?> deadlineTimer;
    private boolean stopped;
    /** Whether a deadline check was ever armed (or deferred). */
    private boolean deadlineArmed;

    LeaseTimers(Watchdog watchdog, Runnable renewal, Runnable deadlineCheck) {
        this.watchdog = watchdog;
        this.renewal = renewal;
        this.deadlineCheck = deadlineCheck;
    }

    /** Replaces the pending renewal with one in {@code delayNanos}. */
    void scheduleRenewal(long delayNanos) {
        if (this.renewalTimer != null) {
            this.renewalTimer.cancel(false);
        }
        if (!this.stopped) {
            this.renewalTimer = this.watchdog.schedule(this.renewal, delayNanos);
        }
    }

    /** Replaces the pending deadline check with one in {@code untilDeadlineNanos}. */
    void armDeadline(long untilDeadlineNanos) {
        if (this.deadlineTimer != null) {
            this.deadlineTimer.cancel(false);
        }
        if (this.stopped) {
            return;
        }
        if (!this.deadlineArmed && untilDeadlineNanos > 2 * Watchdog.DEFER_NANOS) {
            this.watchdog.deferDeadline(this.deadlineCheck);
        } else {
            this.deadlineTimer = this.watchdog.scheduleDeadline(this.deadlineCheck, untilDeadlineNanos);
        }
        this.deadlineArmed = true;
    }

    /** Cancels the renewal chain and the deadline check for good. */
    void stop() {
        this.stopped = true;
        if (this.renewalTimer != null) {
            this.renewalTimer.cancel(false);
            this.renewalTimer = null;
        }
        if (this.deadlineTimer != null) {
            this.deadlineTimer.cancel(false);
            this.deadlineTimer = null;
        }
    }
}
