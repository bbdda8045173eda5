package dev.turnstile.redis.internal;

import java.util.concurrent.TimeUnit;

/**
 * The pace at which a local gate lets its queued threads in, and from it how long a thread that
 * queues there waits awake (calling {@link Thread#yield()} between looks) before it parks.
 *
 * <p>On a hot key, parking costs most of a hand-off: a parked thread that is let in must be woken,
 * and a wake-up (on a virtual machine, one CPU kicking another out of its idle state) takes several
 * times as long as the hold it is for. A thread whose turn is due soon therefore waits awake and
 * takes its turn as soon as it is handed over. It waits awake for up to {@link #AWAKE_FACTOR} times
 * its expected wait (the threads ahead of it times the recent tenure of the gate's occupants), at
 * most {@link #MAX_AWAKE_NANOS}, and only while that expected wait is itself at most {@link
 * #MAX_AWAKE_NANOS} and the occupant has not held longer than that already: a thread that
 * queues during a hold of milliseconds parks at once, and once the average has learnt such holds
 * (a few of them) so does every thread behind them; so does a thread far back in a long queue,
 * which a wake-up then reaches. The tenure is a
 * moving average over occupants that followed each other with no gap, each counted at most twice
 * {@link #MAX_AWAKE_NANOS}; it is unknown, and nobody waits awake, until one occupant has passed
 * the gate to the next. How many threads of a process wait awake at once is bounded too ({@link
 * QueuedThread#MAX_AWAKE_THREADS}), and a gate whose {@code Turnstile} does not wait awake
 * ({@code awakeWaiting}; by default none under a {@link CpuQuota}) never asks for it.
 *
 * <p>Not thread-safe: guarded by the gate's lock.
 */
final class TurnPace {

    /** The longest a queued thread waits awake, and the longest expected wait it does so for. */
    static final long MAX_AWAKE_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    /** How many times its expected wait a queued thread waits awake (bounded by the maximum). */
    static final int AWAKE_FACTOR = 4;

    /** The most one tenure counts for in the average. */
    private static final long MAX_TENURE_SAMPLE_NANOS = 2 * MAX_AWAKE_NANOS;

    /** The occupants' recent tenure, a moving average (weight 1/8 to the newest); 0 until known. */
    private long tenureNanos;
    /** When the current occupant got the gate, if {@link #occupied}. */
    private long occupiedSinceNanos;

    private boolean occupied;

    /** A thread found the gate free and took it at {@code nowNanos}. */
    void entered(long nowNanos) {
        this.occupiedSinceNanos = nowNanos;
        this.occupied = true;
    }

    /** The occupant passed the gate to a queued thread at {@code nowNanos}: one more tenure is known. */
    void passed(long nowNanos) {
        if (this.occupied) {
            // A long hold counts as twice the longest wait awake: enough to stop waiting awake
            // behind holds like it, while a few short ones bring the average back.
            long tenure = Math.max(1, Math.min(MAX_TENURE_SAMPLE_NANOS, nowNanos - this.occupiedSinceNanos));
            this.tenureNanos = this.tenureNanos == 0 ? tenure : this.tenureNanos + (tenure - this.tenureNanos) / 8;
        }
        this.occupiedSinceNanos = nowNanos;
        this.occupied = true;
    }

    /** The occupant left and nobody queued: the next tenure counts from the next entry. */
    void freed() {
        this.occupied = false;
    }

    /**
     * How long a thread that queues at {@code nowNanos} behind {@code ahead} others (the occupant
     * counted) waits awake before it parks; 0 when the pace is unknown, its expected wait is over
     * {@link #MAX_AWAKE_NANOS}, or the occupant has already held longer than that.
     */
    long awakeNanos(int ahead, long nowNanos) {
        if (this.tenureNanos == 0 || ahead <= 0 || this.tenureNanos > MAX_AWAKE_NANOS / ahead) {
            return 0;
        }
        if (this.occupied && nowNanos - this.occupiedSinceNanos > MAX_AWAKE_NANOS) {
            return 0;
        }
        return Math.min(MAX_AWAKE_NANOS, AWAKE_FACTOR * this.tenureNanos * ahead);
    }
}
