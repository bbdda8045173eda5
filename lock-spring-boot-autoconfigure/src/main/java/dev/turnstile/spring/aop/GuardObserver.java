package dev.turnstile.spring.aop;

import dev.turnstile.redis.Lease;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Hears what guarded methods do, for metrics and tracing. {@code name} is the annotation's key
 * template(s) (or the method's qualified name when it has no key): bounded, never a resolved key.
 * Implementations must be thread-safe and quick.
 */
public interface GuardObserver {

    /** Observes nothing. */
    GuardObserver NONE = new GuardObserver() {};

    /**
     * Wraps one acquisition (wait included), e.g. in an observation: {@code acquire} returns the
     * lease, or empty when the lock was busy or the semaphore full for the whole wait, or throws
     * (Redis unreachable, an interrupted wait). Returns what {@code acquire} returned and throws
     * what it threw.
     */
    default Optional<? extends Lease> observeAcquire(
            GuardKind kind, String name, Supplier<Optional<? extends Lease>> acquire) {
        return acquire.get();
    }

    /** The lock or permit was acquired after {@code waited}. */
    default void acquired(GuardKind kind, String name, Duration waited) {}

    /** It was not acquired within the wait (a timeout, or a full semaphore). */
    default void notAcquired(GuardKind kind, String name, Duration waited) {}

    /** The acquisition failed with {@code error} (Redis unreachable, a bad key). */
    default void failed(GuardKind kind, String name, Duration waited, RuntimeException error) {}

    /** The lock or permit was released after being held for {@code held}. */
    default void released(GuardKind kind, String name, Duration held) {}
}
