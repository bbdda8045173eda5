package dev.turnstile.redis.internal;

import dev.turnstile.redis.TurnstileException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The acquisition sequence shared by locks and semaphores, after the local gate: wait for a grant
 * ({@link WaitLoop}), start the lease, and clean up on every way out: no grant in time, an interrupt
 * (the grant that raced it is released), or a failure. The replica check happens in the grant
 * itself ({@link ScriptRunner#evalGranting}). An interrupt ends the waits, never a call to Redis:
 * the tries and the clean-up calls run with it deferred ({@link Uninterrupted}), so a thread
 * interrupted while it waits for a pooled connection still frees what it was granted and ends with
 * the interrupted exception.
 */
final class Acquisition {

    /**
     * How long a thread let in by a release that another process was told of waits for that process
     * to take the grant before it tries (the lock cohort's head start).
     */
    private static final long COURTESY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private Acquisition() {}

    /**
     * Waits for a grant until {@code deadlineNanos} and starts it.
     *
     * @param yieldFirst whether another process was told of the release that let this thread in: it
     *     gets a head start (a wait for a release signal, at most until the deadline) before the
     *     first try
     * @param giveUp run when no lease comes out of the wait: no grant in time, an interrupt, a failure
     * @param interrupted the exception for an interrupted thread (which keeps its interrupt flag)
     * @return the started lease, or null if the deadline passed first
     */
    public static <L extends ManagedLease> @Nullable L await(
            ReleaseSignals signals,
            String channel,
            long deadlineNanos,
            boolean yieldFirst,
            WaitLoop.Attempt<L> attempt,
            Runnable giveUp,
            Supplier<? extends TurnstileException> interrupted) {
        long remaining = deadlineNanos - System.nanoTime();
        long courtesyNanos = remaining > 0 && yieldFirst ? Math.min(COURTESY_NANOS, remaining) : 0;
        L lease;
        try {
            lease = WaitLoop.acquire(signals, channel, deadlineNanos, courtesyNanos, attempt);
        } catch (InterruptedException e) {
            giveUp.run();
            throw interrupted.get();
        } catch (RuntimeException e) {
            giveUp.run();
            throw e;
        }
        if (lease == null) {
            giveUp.run();
            return null;
        }
        return start(lease, interrupted);
    }

    /**
     * Starts a granted lease (from here on it owns what the acquisition held, and gives it up when it
     * ends); a lease granted to a thread that was interrupted meanwhile is released.
     */
    public static <L extends ManagedLease> L start(L lease, Supplier<? extends TurnstileException> interrupted) {
        try {
            lease.start();
        } catch (RuntimeException e) {
            Uninterrupted.run(lease::close);
            throw e;
        }
        if (Thread.currentThread().isInterrupted()) {
            // Released as by a thread that was not interrupted (the flag is set again afterwards).
            Uninterrupted.run(lease::close);
            throw interrupted.get();
        }
        return lease;
    }
}
