package dev.turnstile.annotation;

/**
 * Whether a guard refuses the calls it cannot admit, or only observes them. An observed guard
 * still takes its lock or permit when it can (so the counts in Redis are those enforcing would
 * give), but when it would refuse (a busy lock past its wait, a full semaphore, Redis unavailable)
 * the method runs anyway and the refusal is counted and logged instead.
 *
 * <p>Configuration wins over the annotation: a guard named in {@code turnstile.enforced-names} or
 * {@code turnstile.observed-names} is enforced or observed whatever this says; otherwise {@link
 * #ENFORCE} or {@link #OBSERVE} here wins over {@code turnstile.enforce}.
 */
public enum Enforce {

    /** Follow the configuration: {@code turnstile.enforce} (true by default). */
    DEFAULT,

    /** Refuse: the guard's {@code onFailure} or fallback applies. */
    ENFORCE,

    /** Never refuse: run the method anyway, and count and log what would have been refused. */
    OBSERVE
}
