package dev.turnstile.annotation;

/** What an annotated method does when its lock or permit is not acquired within the wait. */
public enum OnFailure {

    /**
     * Throw: {@code LockAcquisitionException} for a lock, {@code SemaphoreFullException} for a
     * semaphore. The method does not run. The default.
     */
    THROW,

    /**
     * Skip the method and return an empty value: {@code null}, {@code Optional.empty()}, an empty
     * {@code Mono} or {@code Flux}, or a future completed with {@code null}. A method returning a
     * primitive cannot be skipped; that is reported at startup.
     */
    SKIP
}
