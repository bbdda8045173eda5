package dev.turnstile.spring.aop;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseKind;
import java.time.Duration;
import java.util.Optional;
import java.util.function.IntSupplier;
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
            LeaseKind kind, String name, Supplier<Optional<? extends Lease>> acquire) {
        return acquire.get();
    }

    /**
     * Wraps one acquisition like {@link #observeAcquire(LeaseKind, String, Supplier)}, saying whether
     * the guard enforces: when it only observes, an empty answer refuses nothing (the method runs),
     * so it must not be recorded as a refusal. Calls the three-argument form by default.
     */
    default Optional<? extends Lease> observeAcquire(
            LeaseKind kind, String name, boolean enforced, Supplier<Optional<? extends Lease>> acquire) {
        return observeAcquire(kind, name, acquire);
    }

    /** The lock or permit was acquired after {@code waited}. */
    default void acquired(LeaseKind kind, String name, Duration waited) {}

    /**
     * It was not acquired within the wait (a timeout, or a full semaphore) and the call is refused.
     * Not told for a guard that only observes: its call runs, and {@link #refusalObserved} is told.
     */
    default void notAcquired(LeaseKind kind, String name, Duration waited) {}

    /** The acquisition failed with {@code error} (Redis unreachable, a bad key). */
    default void failed(LeaseKind kind, String name, Duration waited, RuntimeException error) {}

    /** The lock or permit was released after being held for {@code held}. */
    default void released(LeaseKind kind, String name, Duration held) {}

    /**
     * A guard that only observes would have refused a call, for {@code reason}; the method ran
     * anyway. Told instead of {@link #notAcquired}, or after {@link #failed}.
     */
    default void refusalObserved(LeaseKind kind, String name, Refusal reason) {}

    /**
     * A call began under the semaphore {@code name}: {@code concurrency} reads how many calls of its
     * key run at once across every node, this one included (the permits held in Redis, plus this
     * call when it runs without one because the semaphore only observes). Reading it is one Redis
     * call, made only if asked; it throws if Redis cannot be reached.
     */
    default void semaphoreEntered(String name, IntSupplier concurrency) {}
}
