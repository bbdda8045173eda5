package dev.turnstile.redis.internal;

import dev.turnstile.redis.TurnstileException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * How a fair semaphore's try that does not wait, and every fair waiter under {@code minReplicas}
 * (whose grants must reach the replicas), gets its permit; the other waiters of a process wait in
 * its {@link FairPermitQueue}. Such a waiter takes its ticket in Redis's queue on arrival
 * and waits, subscribed, for the release that hands it a permit (or for its turn at a free one), so
 * arrival order holds across processes. It never queues in the process and never receives a permit
 * passed on locally. A release that hands it a permit leaves it for the waiter's next call, which
 * takes it at its full lease. On every way out without a lease the waiter leaves Redis's queue, freeing a permit
 * already handed to it.
 */
final class FairPermitWait {

    private final ReleaseSignals signals;
    private final String channel;
    private final PermitCalls calls;

    /**
     * The waits for a fair semaphore whose releases are signalled on {@code channel}, whose waiters
     * and whose calls are {@code calls}.
     */
    FairPermitWait(ReleaseSignals signals, String channel, PermitCalls calls) {
        this.signals = signals;
        this.channel = channel;
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
        ManagedLease lease;
        try {
            lease = WaitLoop.acquireInQueue(
                    this.signals, this.channel, deadline, () -> this.calls.attempt(id, terms, true, null));
        } catch (InterruptedException e) {
            this.calls.leaveQueue(id, terms);
            throw interrupted.get();
        } catch (RuntimeException e) {
            this.calls.leaveQueue(id, terms);
            throw e;
        }
        if (lease == null) {
            this.calls.leaveQueue(id, terms);
            return null;
        }
        return Acquisition.start(lease, interrupted);
    }
}
