package dev.turnstile.redis.internal;

import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The in-process queues of one deployment's semaphores, by name ({@link PermitQueue}: where the
 * threads of this process that wait for a permit of an unfair semaphore queue, and where its permits
 * pass between them).
 *
 * <p>A fair semaphore's waiters queue here too, apart ({@link FairPermitQueue}): each of them has
 * its ticket in Redis's queue, and a permit passes between them only in ticket order across
 * processes.
 */
final class PermitQueues {

    private final ConcurrentHashMap<String, PermitQueue> queues = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, FairPermitQueue> fair = new ConcurrentHashMap<>();

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

    /**
     * Enters the queue of fair semaphore {@code name} in this process ({@link FairPermitQueue});
     * leave it with {@link #leaveFair} when done waiting.
     */
    FairPermitQueue enterFair(RedisDeployment deployment, String name, int limit, long keepAliveNanos) {
        return this.fair.compute(name, (key, existing) -> {
            FairPermitQueue entered =
                    existing != null ? existing : new FairPermitQueue(deployment, key, limit, keepAliveNanos);
            entered.users++;
            return entered;
        });
    }

    /** A thread stopped waiting in {@code queue}: it leaves the map with its last waiter. */
    void leaveFair(FairPermitQueue queue) {
        boolean[] idle = {false};
        this.fair.computeIfPresent(queue.name(), (key, existing) -> {
            if (existing == queue && --existing.users == 0) {
                idle[0] = true;
                return null;
            }
            return existing;
        });
        if (idle[0]) {
            queue.closeIfIdle();
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
