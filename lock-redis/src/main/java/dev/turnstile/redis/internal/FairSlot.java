package dev.turnstile.redis.internal;

import org.jspecify.annotations.Nullable;

/**
 * Where a release of this process offers a fair waiter of this process the permit its script handed
 * to it. Once the waiter has taken an offer, or closed the slot (it got its permit from Redis, or
 * gave up), later offers are ignored: the permit is in Redis under the waiter's id, which it holds,
 * or frees when it leaves the queue.
 */
final class FairSlot {

    /**
     * A permit a release of this process handed to a fair waiter of this process, in Redis under the
     * waiter's id.
     *
     * @param fencingToken the token the release issued for it
     * @param sentNanos {@link System#nanoTime()} before the release was sent (the grant, at the
     *     waiter's full lease, came after)
     * @param grantedAtMillis the server's clock at the hand-off
     */
    record FairOffer(long fencingToken, long sentNanos, long grantedAtMillis) {}

    private @Nullable FairOffer offer;
    private boolean closed;

    /** Offers the waiter {@code offered}, unless the slot is closed. */
    synchronized void offer(FairOffer offered) {
        if (!this.closed) {
            this.offer = offered;
        }
    }

    /** Takes the permit offered, if any, and closes the slot then. */
    synchronized @Nullable FairOffer take() {
        if (this.closed || this.offer == null) {
            return null;
        }
        this.closed = true;
        return this.offer;
    }

    /** Closes the slot; returns the permit offered and not yet taken, if any. */
    synchronized @Nullable FairOffer close() {
        if (this.closed) {
            return null;
        }
        this.closed = true;
        return this.offer;
    }
}
