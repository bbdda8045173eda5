package dev.turnstile.spring.internal.aop;

import dev.turnstile.redis.Lease;
import dev.turnstile.spring.aop.OnLeaseLost;

/**
 * The thread running a guarded method, interrupted if the method's lease is lost while it runs
 * ({@link OnLeaseLost#INTERRUPT}); never after the method has finished.
 */
final class MethodThread {

    private final Thread thread = Thread.currentThread();
    private boolean running = true;

    private MethodThread() {}

    static MethodThread watch(Lease lease) {
        MethodThread watched = new MethodThread();
        lease.onLost(event -> watched.interrupt());
        return watched;
    }

    synchronized void finished() {
        this.running = false;
    }

    private synchronized void interrupt() {
        if (this.running) {
            this.thread.interrupt();
        }
    }
}
