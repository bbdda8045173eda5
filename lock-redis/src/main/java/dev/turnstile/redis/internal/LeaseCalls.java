package dev.turnstile.redis.internal;

import org.jspecify.annotations.Nullable;

/**
 * The lock of one {@link ManagedLease} (its monitor, never held across a call to Redis), and which
 * of the lease's calls to Redis are in flight: one {@link #renewal} or extension at a time (so they
 * apply in Redis order), one {@link #release} at a time. A thread may call the lease again from a
 * listener it runs: it never waits for its own call. Call every method while holding this object's
 * monitor, but {@link Call#end}; it is notified whenever a call ends while a thread waits.
 */
final class LeaseCalls {

    /** The renewal or extension in flight. */
    final Call renewal = new Call();

    /** The owner's release in flight. */
    final Call release = new Call();

    /** Threads in {@link #awaitDone}: a call's end notifies only when one waits. */
    private int waiting;

    /**
     * Waits until no other thread's release (and, with {@code renewalsToo}, renewal or extension)
     * is in flight. An interrupt is kept for the caller, not acted on.
     */
    void awaitDone(boolean renewalsToo) {
        boolean interrupted = false;
        while ((renewalsToo && this.renewal.elsewhere()) || this.release.elsewhere()) {
            this.waiting++;
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            } finally {
                this.waiting--;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** One kind of call: the thread whose call is in flight, or none. */
    final class Call {

        private @Nullable Thread thread;

        /** Whether another thread's call is in flight. */
        boolean elsewhere() {
            return this.thread != null && this.thread != Thread.currentThread();
        }

        /** Marks this thread's call in flight; returns the one it runs inside, if any. */
        @Nullable
        Thread begin() {
            Thread outer = this.thread;
            this.thread = Thread.currentThread();
            return outer;
        }

        /** Ends this thread's call (takes the lock itself); {@code outer} is the one it ran inside. */
        void end(@Nullable Thread outer) {
            synchronized (LeaseCalls.this) {
                this.thread = outer;
                if (LeaseCalls.this.waiting > 0) {
                    LeaseCalls.this.notifyAll();
                }
            }
        }
    }
}
