package dev.turnstile.redis.internal;

import java.util.concurrent.TimeUnit;

/**
 * The pace at which a local gate lets its queued threads in, and from it how long a thread that
 * queues there waits awake (yielding its CPU to any other thread that wants it) before it parks.
 *
 * <p>On a hot key, parking costs most of a hand-off: a parked thread that is let in must be woken,
 * and a wake-up (on a virtual machine, one CPU kicking another out of its idle state) takes several
 * times as long as the hold it is for. A thread whose turn is due soon therefore waits awake and
 * takes its turn as soon as it is handed over. It waits awake for up to {@link #AWAKE_FACTOR} times
 * its expected wait (the threads ahead of it times the recent tenure of the gate's occupants), at
 * most {@link #MAX_AWAKE_NANOS}, and only while that expected wait is itself at most {@link
 * #MAX_AWAKE_NANOS}: a thread behind holds of milliseconds parks at once, so a lock held that long
 * costs no waiting CPU. The tenure is a moving average over occupants that followed each other with
 * no gap; it is unknown, and nobody waits awake, until one occupant has passed the gate to the next.
 *
 * <p>Not thread-safe: guarded by the gate's lock.
 */
final class TurnPace {

    /** The longest a queued thread waits awake, and the longest expected wait it does so for. */
    static final long MAX_AWAKE_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    /** How many times its expected wait a queued thread waits awake (bounded by the maximum). */
    static final int AWAKE_FACTOR = 4;

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
            long tenure = Math.max(1, nowNanos - this.occupiedSinceNanos);
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
     * How long a thread that queues behind {@code ahead} others (the occupant counted) waits awake
     * before it parks; 0 when the pace is unknown or its expected wait is over {@link #MAX_AWAKE_NANOS}.
     */
    long awakeNanos(int ahead) {
        if (this.tenureNanos == 0 || ahead <= 0 || this.tenureNanos > MAX_AWAKE_NANOS / ahead) {
            return 0;
        }
        return Math.min(MAX_AWAKE_NANOS, AWAKE_FACTOR * this.tenureNanos * ahead);
    }
}
