package dev.turnstile.spring.aop;

/** What happens when a guarded method's lease is lost while the method still runs. */
public enum OnLeaseLost {
    /** Log it at WARN (the lease's own loss report); the method runs on. */
    LOG,
    /** Interrupt the thread running the method (synchronous methods only). */
    INTERRUPT,
    /** Refuse to commit the method's transaction: it rolls back with a {@code LockLostException}. */
    ROLLBACK
}
