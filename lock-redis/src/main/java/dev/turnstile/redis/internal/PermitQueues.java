package dev.turnstile.redis.internal;

import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The in-process queues of one deployment's semaphores, by name ({@link PermitQueue}: where the
 * threads of this process that wait for a permit of an unfair semaphore queue, and where its permits
 * pass between them), and the fair waiters of this process ({@link FairSlot}).
 *
 * <p>Only an unfair semaphore queues here. A fair one keeps strict arrival order across processes,
 * so each of its waiters takes its ticket in Redis's queue on arrival and is served by Redis: it
 * never queues in the process and never receives a permit passed on locally. A fair waiter is only
 * registered here ({@link #waitFair}), so that a release of this process whose script hands the
 * freed permit to it (with its fencing token) can offer it the grant without another call.
 */
final class PermitQueues {

    private final ConcurrentHashMap<String, PermitQueue> queues = new ConcurrentHashMap<>();

    /** The fair waiters of this process, by permit id: a release here may hand them a permit. */
    private final ConcurrentHashMap<String, FairSlot> fairWaiters = new ConcurrentHashMap<>();

    /**
     * Registers fair waiter {@code id} of this process until {@link #leaveFair}: a release in this
     * process that hands it a permit offers the grant here, so the waiter takes it without a call.
     */
    FairSlot waitFair(String id) {
        FairSlot slot = new FairSlot();
        this.fairWaiters.put(id, slot);
        return slot;
    }

    /** The fair waiter {@code id} stopped waiting. */
    void leaveFair(String id) {
        this.fairWaiters.remove(id);
    }

    /** Offers the permit a release handed to fair waiter {@code id}, if it waits in this process. */
    void offerFair(String id, FairSlot.FairOffer offer) {
        FairSlot slot = this.fairWaiters.get(id);
        if (slot != null) {
            slot.offer(offer);
        }
    }

    /**
     * Enters the queue of semaphore {@code name}: at once as an occupant when fewer than {@code
     * limit} threads of this process hold or contend (or when the caller does not wait), otherwise
     * after waiting here until {@code deadlineNanos} for a place or a permit passed on.
     *
     * @return the entry, or null if the deadline passed first
     * @throws InterruptedException if interrupted while queued (nothing is held then)
     */
    PermitQueue.@Nullable Entry enter(String name, int limit, boolean waits, long deadlineNanos)
            throws InterruptedException {
        PermitQueue queue = this.queues.compute(name, (key, existing) -> {
            PermitQueue entered = existing != null ? existing : new PermitQueue(key, this);
            entered.users++;
            return entered;
        });
        PermitQueue.Entry entry = null;
        try {
            entry = queue.await(limit, waits, deadlineNanos);
            return entry;
        } finally {
            if (entry == null) {
                leave(queue);
            }
        }
    }

    /** Returns the number of semaphore names with a thread of this process holding or queued. */
    int size() {
        return this.queues.size();
    }

    /** A thread left {@code queue}: it leaves the map with its last thread. */
    void leave(PermitQueue queue) {
        this.queues.computeIfPresent(queue.name(), (key, existing) -> --existing.users == 0 ? null : existing);
    }
}
