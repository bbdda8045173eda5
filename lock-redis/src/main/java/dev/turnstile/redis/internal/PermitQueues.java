package dev.turnstile.redis.internal;

import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The in-process queues of one deployment's semaphores, by name ({@link PermitQueue}: where the
 * threads of this process that wait for a permit of an unfair semaphore queue, and where its permits
 * pass between them).
 *
 * <p>Only an unfair semaphore queues here. A fair one keeps strict arrival order across processes,
 * so each of its waiters takes its ticket in Redis's queue on arrival and is served by Redis: it
 * never queues in the process and never receives a permit passed on locally.
 */
final class PermitQueues {

    private final ConcurrentHashMap<String, PermitQueue> queues = new ConcurrentHashMap<>();

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
        return QueuedThread.awaitOrLeave(() -> queue.await(limit, waits, deadlineNanos), () -> leave(queue));
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
