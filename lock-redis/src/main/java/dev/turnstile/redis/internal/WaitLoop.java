package dev.turnstile.redis.internal;

import org.jspecify.annotations.Nullable;

/**
 * Tries to acquire until granted or the deadline passes, sleeping between tries until a release
 * signal arrives or a bounded, jittered backoff elapses (a safety net: signals are hints, Redis is
 * the truth). The first try needs no subscription, so an uncontended acquire is one Redis call.
 *
 * <p>A waiter that holds a place in a queue in Redis ({@link #acquireInQueue}) subscribes before it
 * tries and sleeps through the signals meant for the waiters ahead of it.
 */
final class WaitLoop {

    private WaitLoop() {}

    /** One acquire attempt. */
    @FunctionalInterface
    public interface Attempt<T> {

        /** Tries once; returns the grant or {@link Outcome#busy}. */
        Outcome<T> tryOnce();
    }

    /**
     * What one attempt found.
     *
     * @param grant the grant, or null if busy
     * @param retryHintNanos when the current holder's grant expires at the latest; 0 if unknown
     * @param signalsToSkip release signals that cannot help this waiter yet (a fair waiter with
     *     others ahead of it in the queue: one signal for each that leaves the queue); it then
     *     retries after {@code retryHintNanos} at the latest, which must keep its place in the
     *     queue alive
     */
    public record Outcome<T>(@Nullable T grant, long retryHintNanos, long signalsToSkip) {

        /** A successful attempt. */
        public static <T> Outcome<T> granted(T grant) {
            return new Outcome<>(grant, 0, 0);
        }

        /** A failed attempt; the holder's grant expires within {@code retryHintNanos} (0: unknown). */
        public static <T> Outcome<T> busy(long retryHintNanos) {
            return new Outcome<>(null, retryHintNanos, 0);
        }

        /**
         * A failed attempt of a queued waiter that cannot be served before {@code skip} more
         * signals; it retries when the first permit expires ({@code retryHintNanos}, 0: unknown)
         * or after {@code keepAliveNanos}, whichever comes first, unless enough signals come first.
         */
        public static <T> Outcome<T> queued(long retryHintNanos, long skip, long keepAliveNanos) {
            return new Outcome<>(
                    null, retryHintNanos > 0 ? Math.min(retryHintNanos, keepAliveNanos) : keepAliveNanos, skip);
        }
    }

    /**
     * Runs {@code attempt} until it grants or {@code deadlineNanos} ({@link System#nanoTime()})
     * passes.
     *
     * @param courtesyNanos how long to wait for a release signal before the first try (0: none)
     * @return the grant, or null if the deadline passed
     * @throws InterruptedException if interrupted while waiting, or during an attempt that granted
     *     nothing; no grant is held then
     */
    public static <T> @Nullable T acquire(
            ReleaseSignals signals, String channel, long deadlineNanos, long courtesyNanos, Attempt<T> attempt)
            throws InterruptedException {
        if (courtesyNanos <= 0) {
            Outcome<T> first = attempt.tryOnce();
            if (first.grant() != null || deadlineNanos - System.nanoTime() <= 0) {
                return first.grant();
            }
        }
        try (ReleaseSignals.Subscription subscription = signals.subscribe(channel)) {
            Backoff backoff = new Backoff();
            // A courtesy lasts until another process releases, not until Redis confirms the
            // subscription: that confirmation comes within a round trip, long before a process that
            // was told of the release could have taken the lock and given it back.
            long seen = courtesyNanos > 0 ? subscription.generationOnceConfirmed() : subscription.generation();
            long skip = 0;
            long pause = courtesyNanos > 0 ? courtesyNanos : backoff.nextNanos();
            // Joining a channel that is already live: a release since the first try may be unseen.
            boolean retryAtOnce = courtesyNanos <= 0 && subscription.joinedLive();
            while (true) {
                long remaining = deadlineNanos - System.nanoTime();
                requireNotInterrupted();
                if (!retryAtOnce) {
                    subscription.await(seen + skip, Math.min(Math.max(remaining, 0), pause), () -> false);
                }
                retryAtOnce = false;
                seen = subscription.generation();
                Outcome<T> outcome = attempt.tryOnce();
                if (outcome.grant() != null) {
                    return outcome.grant();
                }
                if (deadlineNanos - System.nanoTime() <= 0) {
                    return null;
                }
                skip = outcome.signalsToSkip();
                pause = backoff.nextNanos();
                if (skip > 0) {
                    pause = outcome.retryHintNanos(); // queued behind others: only keep the place
                } else if (outcome.retryHintNanos() > 0) {
                    pause = Math.min(pause, outcome.retryHintNanos());
                }
            }
        }
    }

    /**
     * Runs {@code attempt} for a waiter queued in Redis until it grants or {@code deadlineNanos}
     * passes. The waiter subscribes first: once Redis has confirmed the subscription, every signal
     * published after a try is heard, so the waiter sleeps through the {@link
     * Outcome#signalsToSkip()} signals that serve the waiters ahead and wakes at its own turn (or at
     * its retry hint, the safety net). Until the subscription is confirmed it retries at each
     * signal or after a short backoff, as {@link #acquire} does.
     *
     * @return the grant, or null if the deadline passed
     * @throws InterruptedException if interrupted while waiting, or during an attempt that granted
     *     nothing; the attempts' place may remain
     */
    public static <T> @Nullable T acquireInQueue(
            ReleaseSignals signals, String channel, long deadlineNanos, Attempt<T> attempt)
            throws InterruptedException {
        try (ReleaseSignals.Subscription subscription = signals.subscribe(channel)) {
            Backoff backoff = new Backoff();
            while (true) {
                long seen = subscription.generation();
                // Confirmed before the try was sent: every signal of a later script reaches us.
                boolean counted = subscription.generationOnceConfirmed() == seen;
                Outcome<T> outcome = attempt.tryOnce();
                if (outcome.grant() != null) {
                    return outcome.grant();
                }
                long remaining = deadlineNanos - System.nanoTime();
                if (remaining <= 0) {
                    return null;
                }
                long skip = counted ? outcome.signalsToSkip() : 0;
                long pause = counted ? outcome.retryHintNanos() : backoff.nextNanos();
                requireNotInterrupted();
                subscription.await(seen + skip, Math.min(remaining, Math.max(pause, 1)), () -> false);
            }
        }
    }

    /**
     * Ends the wait of a thread interrupted meanwhile, also while it was in an attempt, which a
     * call to Redis makes with the interrupt deferred ({@link Uninterrupted}).
     */
    private static void requireNotInterrupted() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
    }
}
