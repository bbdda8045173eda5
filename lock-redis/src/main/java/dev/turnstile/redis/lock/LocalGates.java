package dev.turnstile.redis.lock;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Queues the threads of this process that want the same lock, so that only one of them contends
 * in Redis at a time; the others wait here, in arrival order, without any Redis traffic.
 *
 * <p>A gate is held from acquire to release, by whichever thread releases (gates are not bound to
 * threads). Local hand-offs are bounded: after {@value #MAX_LOCAL_HANDOFFS} grants in a row passed
 * between threads of this process while another process was waiting, the next local contender
 * first lets the other process try, so no process is starved by a busier one.
 */
final class LocalGates {

    static final int MAX_LOCAL_HANDOFFS = 8;

    private final ConcurrentHashMap<String, Gate> gates = new ConcurrentHashMap<>();

    /**
     * Enters the gate of {@code name}, waiting until {@code deadlineNanos}.
     *
     * @return the gate, or null if the deadline passed first
     */
    @Nullable
    Gate enter(String name, long deadlineNanos) throws InterruptedException {
        Gate gate = this.gates.compute(name, (key, existing) -> {
            Gate entered = existing != null ? existing : new Gate(key);
            entered.users++;
            return entered;
        });
        boolean entered = false;
        try {
            long timeout = Math.max(0, deadlineNanos - System.nanoTime());
            entered = gate.permit.tryAcquire(timeout, TimeUnit.NANOSECONDS);
            return entered ? gate : null;
        } finally {
            if (!entered) {
                leave(gate);
            }
        }
    }

    /** Returns the number of names with a thread inside or waiting (for tests). */
    int size() {
        return this.gates.size();
    }

    private void leave(Gate gate) {
        this.gates.computeIfPresent(gate.name, (key, existing) -> --existing.users == 0 ? null : existing);
    }

    /** One name's gate. */
    final class Gate {

        private final String name;
        private final Semaphore permit = new Semaphore(1, true);
        private int users;
        private int handoffStreak;
        private boolean yieldNext;

        private Gate(String name) {
            this.name = name;
        }

        /**
         * Returns whether the thread that just entered should let other processes try first, and
         * clears the flag.
         */
        synchronized boolean takeYield() {
            boolean yield = this.yieldNext;
            this.yieldNext = false;
            return yield;
        }

        /**
         * Leaves the gate after the lock was released or lost.
         *
         * @param waitersElsewhere processes told of the release (-1 unknown)
         */
        void exit(long waitersElsewhere) {
            synchronized (this) {
                if (waitersElsewhere > 0 && this.permit.hasQueuedThreads()) {
                    if (++this.handoffStreak >= MAX_LOCAL_HANDOFFS) {
                        this.handoffStreak = 0;
                        this.yieldNext = true;
                    }
                } else {
                    this.handoffStreak = 0;
                }
            }
            this.permit.release();
            leave(this);
        }
    }
}
