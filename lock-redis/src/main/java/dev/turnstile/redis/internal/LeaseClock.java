package dev.turnstile.redis.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The time of one {@link ManagedLease}: its local deadline ({@link System#nanoTime()}; the grant
 * lives in Redis at least until then), a fixed lease's planned end, the lease time that renewals
 * ask for, and whether the watchdog renews it. The deadline and the lease time are read without a
 * lock; every change is made under the lease's lock.
 */
final class LeaseClock {

    private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final boolean renewedByWatchdog;
    private volatile Duration leaseTime;
    private volatile long deadlineNanos;
    /**
     * A fixed lease's end as its holder asked for it. A lease passed on from another holder of the
     * same grant may start with an earlier deadline (the key's own expiry); it is then topped up to
     * this end, off the acquiring thread, before the deadline comes.
     */
    private long plannedEndNanos;

    private LeaseClock(LeaseTerms terms, long deadlineNanos, long plannedEndNanos) {
        this.renewedByWatchdog = terms.renewedByWatchdog();
        this.leaseTime = terms.leaseTime();
        this.deadlineNanos = deadlineNanos;
        this.plannedEndNanos = plannedEndNanos;
    }

    /** The clock of a grant whose acquire was sent at {@code sentNanos}. */
    static LeaseClock granted(LeaseTerms terms, long sentNanos) {
        long deadline = sentNanos + terms.leaseTime().toNanos();
        return new LeaseClock(terms, deadline, deadline);
    }

    /**
     * The clock of a grant passed on at {@code handedNanos}: held for its lease from then, but no
     * longer than the key is known to live ({@code keyDeadlineNanos}) until topped up or renewed.
     */
    static LeaseClock passedOn(LeaseTerms terms, long handedNanos, long keyDeadlineNanos) {
        long plannedEnd = handedNanos + terms.leaseTime().toNanos();
        return new LeaseClock(terms, Math.min(plannedEnd, keyDeadlineNanos), plannedEnd);
    }

    /** Whether the watchdog renews the lease (the default lease), rather than it being fixed. */
    boolean renewedByWatchdog() {
        return this.renewedByWatchdog;
    }

    /** Whether the lease is renewed at all: by the watchdog, or topped up to its planned end. */
    boolean renews() {
        return this.renewedByWatchdog || shortOfPlannedEnd();
    }

    Duration leaseTime() {
        return this.leaseTime;
    }

    long deadlineNanos() {
        return this.deadlineNanos;
    }

    /** Whether the deadline is still ahead. */
    boolean beforeDeadline() {
        return System.nanoTime() < this.deadlineNanos;
    }

    long untilDeadline() {
        return this.deadlineNanos - System.nanoTime();
    }

    /** How long ago the deadline passed; zero while it is ahead. */
    Duration overdue() {
        return Duration.ofNanos(Math.max(0, -untilDeadline()));
    }

    /** Whether a fixed lease's deadline is short of its planned end (a grant passed on): it needs a top-up. */
    private boolean shortOfPlannedEnd() {
        return this.plannedEndNanos - this.deadlineNanos > 0;
    }

    /** When the first renewal (or top-up) is due: once two thirds of a lease are left. */
    long firstRenewalDelay() {
        return Math.max(0, untilDeadline() - this.leaseTime.toNanos() * 2 / 3);
    }

    /**
     * What a renewal at {@code nowNanos} asks for: the lease time of a watchdog lease, a fixed
     * lease's top-up up to its planned end (never beyond); null when none is due.
     */
    @Nullable
    Duration renewal(long nowNanos) {
        if (this.renewedByWatchdog) {
            return this.leaseTime;
        }
        long toEnd = TimeUnit.NANOSECONDS.toMillis(this.plannedEndNanos - nowNanos);
        if (!shortOfPlannedEnd() || toEnd <= 0) {
            return null;
        }
        return Duration.ofMillis(toEnd);
    }

    /**
     * Lowers the deadline to what a renewal for {@code lease} sent at {@code sentNanos} allows, if
     * that is earlier.
     *
     * @return whether it was lowered
     */
    boolean cap(long sentNanos, Duration lease, long driftNanos) {
        long capped = sentNanos + lease.toNanos() - driftNanos;
        if (capped - this.deadlineNanos < 0) {
            this.deadlineNanos = capped;
            return true;
        }
        return false;
    }

    /**
     * Moves the deadline after a renewal for {@code renewal} sent at {@code sentNanos} succeeded; an
     * extension also makes {@code renewal} the lease time and the new deadline the planned end.
     */
    void renewed(long sentNanos, Duration renewal, long driftNanos, boolean extension) {
        if (extension) {
            this.leaseTime = renewal;
        }
        this.deadlineNanos = sentNanos + renewal.toNanos() - driftNanos;
        if (extension) {
            this.plannedEndNanos = this.deadlineNanos;
        }
    }

    /** When a failed renewal is tried again: a tenth of the lease, within bounds, before the deadline. */
    long retryDelay() {
        long tenth = this.leaseTime.toNanos() / 10;
        return Math.min(Math.max(MIN_RETRY_NANOS, Math.min(tenth, MAX_RETRY_NANOS)), Math.max(0, untilDeadline()));
    }
}
