package dev.turnstile.redis.internal;

import dev.turnstile.redis.TurnstileException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * How a waiter of a fair semaphore gets its permit: it takes its ticket in Redis's queue on arrival
 * and waits, subscribed, for the release that hands it a permit (or for its turn at a free one), so
 * arrival order holds across processes. It never queues in the process and never receives a permit
 * passed on locally; a release of this process that hands it a permit offers the grant in-process
 * ({@link FairSlot}), one of another process leaves it for the waiter's next call, which takes it at
 * its full lease. On every way out without a lease the waiter leaves Redis's queue, freeing a permit
 * already handed to it.
 */
final class FairPermitWait {

    private final ReleaseSignals signals;
    private final String channel;
    private final PermitQueues queues;
    private final PermitCalls calls;

    /**
     * The waits for a fair semaphore whose releases are signalled on {@code channel}, whose waiters
     * of this process are offered permits in {@code queues}, and whose calls are {@code calls}.
     */
    FairPermitWait(ReleaseSignals signals, String channel, PermitQueues queues, PermitCalls calls) {
        this.signals = signals;
        this.channel = channel;
        this.queues = queues;
        this.calls = calls;
    }

    /**
     * Acquires a permit for waiter {@code id} on {@code terms}, waiting until {@code deadline} if
     * {@code waits}, and starts its lease.
     *
     * @param interrupted the exception for an interrupted thread (which keeps its interrupt flag)
     * @return the started lease, or null if the deadline passed first (the waiter left the queue)
     */
    @Nullable
    ManagedLease await(
            String id,
            LeaseTerms terms,
            boolean waits,
            long deadline,
            Supplier<? extends TurnstileException> interrupted) {
        if (!waits) {
            ManagedLease lease;
            try {
                lease = this.calls.attempt(id, terms, false, null).grant(); // leaves the queue in its script
            } catch (RuntimeException e) {
                this.calls.leaveQueue(id, terms);
                throw e;
            }
            return lease == null ? null : Acquisition.start(lease, interrupted);
        }
        FairSlot slot = this.queues.waitFair(id);
        ManagedLease lease;
        try {
            lease = WaitLoop.acquireInQueue(this.signals, this.channel, deadline, () -> attempt(id, terms, slot));
            if (lease == null) {
                // Handed a permit at the last moment: take it.
                FairSlot.FairOffer offer = slot.close();
                lease = offer == null ? null : this.calls.offered(id, terms, offer);
            }
        } catch (InterruptedException e) {
            slot.close();
            this.calls.leaveQueue(id, terms);
            throw interrupted.get();
        } catch (RuntimeException e) {
            slot.close();
            this.calls.leaveQueue(id, terms);
            throw e;
        } finally {
            this.queues.leaveFair(id);
        }
        if (lease == null) {
            this.calls.leaveQueue(id, terms);
            return null;
        }
        return Acquisition.start(lease, interrupted);
    }

    /** One try of a queued fair waiter: the grant a release of this process offered, else Redis. */
    private WaitLoop.Outcome<ManagedLease> attempt(String id, LeaseTerms terms, FairSlot slot) {
        FairSlot.FairOffer offer = slot.take();
        if (offer != null) {
            return WaitLoop.Outcome.granted(this.calls.offered(id, terms, offer));
        }
        WaitLoop.Outcome<ManagedLease> outcome = this.calls.attempt(id, terms, true, null);
        if (outcome.grant() != null) {
            slot.close(); // an offer of the same permit is no longer needed
        }
        return outcome;
    }
}
