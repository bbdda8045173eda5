package dev.turnstile.spring.internal.aop;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.spring.aop.GuardObserver;
import dev.turnstile.spring.aop.Refusal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Tells several observers, in order; the first one's span wraps the others'. The aspect calls the
 * four-argument {@code observeAcquire} only.
 */
public final class CompositeGuardObserver implements GuardObserver {

    private final List<GuardObserver> observers;

    /** Combines {@code observers}. */
    public CompositeGuardObserver(List<GuardObserver> observers) {
        this.observers = List.copyOf(observers);
    }

    @Override
    public Optional<? extends Lease> observeAcquire(
            LeaseKind kind, String name, boolean enforced, Supplier<Optional<? extends Lease>> acquire) {
        Supplier<Optional<? extends Lease>> wrapped = acquire;
        for (int i = this.observers.size() - 1; i >= 0; i--) {
            GuardObserver observer = this.observers.get(i);
            Supplier<Optional<? extends Lease>> inner = wrapped;
            wrapped = () -> observer.observeAcquire(kind, name, enforced, inner);
        }
        return wrapped.get();
    }

    @Override
    public void acquired(LeaseKind kind, String name, Duration waited) {
        this.observers.forEach(observer -> observer.acquired(kind, name, waited));
    }

    @Override
    public void notAcquired(LeaseKind kind, String name, Duration waited) {
        this.observers.forEach(observer -> observer.notAcquired(kind, name, waited));
    }

    @Override
    public void failed(LeaseKind kind, String name, Duration waited, RuntimeException error) {
        this.observers.forEach(observer -> observer.failed(kind, name, waited, error));
    }

    @Override
    public void released(LeaseKind kind, String name, Duration held) {
        this.observers.forEach(observer -> observer.released(kind, name, held));
    }

    @Override
    public void refusalObserved(LeaseKind kind, String name, Refusal reason) {
        this.observers.forEach(observer -> observer.refusalObserved(kind, name, reason));
    }

    /** Reads the concurrency from Redis once, however many observers ask. */
    @Override
    public void semaphoreEntered(String name, IntSupplier concurrency) {
        int[] read = {-1};
        IntSupplier once = () -> read[0] >= 0 ? read[0] : (read[0] = concurrency.getAsInt());
        this.observers.forEach(observer -> observer.semaphoreEntered(name, once));
    }
}
