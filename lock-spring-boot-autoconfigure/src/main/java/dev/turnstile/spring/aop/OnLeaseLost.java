package dev.turnstile.spring.aop;

/**
 * What happens when a guarded method's lease is lost while the method still runs. Whatever the
 * mode, the loss is logged at WARN (naming the lock and the reason) and counted ({@code
 * turnstile.lease.lost}), whether it is found by the watchdog's renewal, an extension, a
 * confirmation before a commit ({@code confirmBeforeCommit}) or the release after the method: a
 * lock force-released by an operator during a short call is found at its release.
 *
 * <p>A loss found during the call goes through the mode below. A loss found only by the release,
 * after the method returned, comes too late to interrupt it or refuse its commit: in {@link
 * #INTERRUPT} and {@link #ROLLBACK} mode, the synchronous call then fails with a {@code
 * LockLostException} instead of returning, since its work may not have been exclusive and the
 * caller (an HTTP client gets 409) must check what it changed. A release deferred to the
 * completion of a surrounding transaction, and the release of a {@code CompletableFuture} or
 * reactive method, come too late even for that: their loss is logged and counted.
 */
public enum OnLeaseLost {
    /** Log it at WARN (the lease's own loss report); the method runs on and its call returns. */
    LOG,
    /** Interrupt the thread running the method (synchronous methods only). */
    INTERRUPT,
    /**
     * Refuse to commit the method's transaction, which rolls back with a {@code
     * LockLostException}, when the lease is known lost locally. To find a force-release before the
     * commit, add {@code confirmBeforeCommit = true} to the annotation.
     */
    ROLLBACK
}
