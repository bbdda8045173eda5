package dev.turnstile.redis.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * One channel's signal count and the threads waiting on it. A signal wakes only the waiters
 * whose target generation it reaches, so a thousand queued waiters cost one wake-up per
 * release, not a thousand.
 */
final class SignalChannel {

    private final String name;
    private final List<Waiter> waiters = new ArrayList<>();
    private int subscribers;
    private volatile boolean confirmed;
    private long generation;

    SignalChannel(String name) {
        this.name = name;
    }

    String name() {
        return this.name;
    }

    /** Whether Redis confirmed the subscription (since it was last made). */
    boolean confirmed() {
        return this.confirmed;
    }

    /** Counts one more subscriber; returns whether it is the first. Call under the hub's lock. */
    boolean join() {
        return this.subscribers++ == 0;
    }

    /** Counts one subscriber less; returns whether it was the last. Call under the hub's lock. */
    boolean leave() {
        return --this.subscribers == 0;
    }

    /** The subscription is no longer confirmed (a new connection, a lost one): a confirmation will signal. */
    void unconfirm() {
        this.confirmed = false;
    }

    /** The channel may have missed a release (connection lost, slot moved): unconfirmed, and signalled. */
    void lost() {
        this.confirmed = false;
        signal();
    }

    synchronized void signal() {
        this.generation++;
        for (Waiter waiter : this.waiters) {
            if (waiter.target <= this.generation) {
                waiter.woken = true;
                LockSupport.unpark(waiter.thread);
            }
        }
    }

    synchronized long generation() {
        return this.generation;
    }

    /** Redis confirmed the subscription: a release may have gone unseen before, so it signals. */
    synchronized void confirm() {
        this.confirmed = true;
        signal();
    }

    /** The generation once a pending confirmation (its signal) has come; read in one step with it. */
    synchronized long generationOnceConfirmed() {
        return this.confirmed ? this.generation : this.generation + 1;
    }

    boolean await(long seen, long timeoutNanos) throws InterruptedException {
        return await(seen, timeoutNanos, () -> false);
    }

    /**
     * Waits like {@link #await(long, long)}, and also returns (false) once {@code done} is true
     * after the thread was unparked: a thread that waits for something else too unparks it.
     */
    boolean await(long seen, long timeoutNanos, java.util.function.BooleanSupplier done) throws InterruptedException {
        Waiter waiter = new Waiter(Thread.currentThread(), seen + 1);
        synchronized (this) {
            if (this.generation > seen) {
                return true;
            }
            this.waiters.add(waiter);
        }
        try {
            long deadline = System.nanoTime() + timeoutNanos;
            while (!waiter.woken) {
                if (done.getAsBoolean()) {
                    return false;
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, remaining);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
            return true;
        } finally {
            synchronized (this) {
                this.waiters.remove(waiter);
            }
        }
    }

    private static final class Waiter {

        private final Thread thread;
        private final long target;
        private volatile boolean woken;

        Waiter(Thread thread, long target) {
            this.thread = thread;
            this.target = target;
        }
    }
}
