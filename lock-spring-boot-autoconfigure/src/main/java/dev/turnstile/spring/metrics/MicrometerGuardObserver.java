package dev.turnstile.spring.metrics;

import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LeaseListener;
import dev.turnstile.redis.LeaseLostEvent;
import dev.turnstile.spring.aop.GuardKind;
import dev.turnstile.spring.aop.GuardObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Records guarded methods and leases in Micrometer. Every meter is tagged by the annotation's key
 * template (or the method's qualified name), never by a resolved key, so cardinality stays
 * bounded.
 *
 * <ul>
 *   <li>{@code turnstile.acquire} (timer): time waited, by {@code kind}, {@code name} and {@code
 *       outcome} = {@code acquired}, {@code timeout} or {@code error};
 *   <li>{@code turnstile.held} (timer): how long a lock or permit was held;
 *   <li>{@code turnstile.semaphore.rejections} (counter): permits refused;
 *   <li>{@code turnstile.permits.in.use} (gauge): permits this node holds, per semaphore;
 *   <li>{@code turnstile.lease.renewals} (counter) and {@code turnstile.lease.lost} (counter, by
 *       {@code reason}): the watchdog's work and the leases it could not keep.
 * </ul>
 *
 * Each acquisition is also an {@link Observation} named {@code turnstile.acquire}, so a trace
 * shows the wait for a lock as a span.
 */
public final class MicrometerGuardObserver implements GuardObserver, LeaseListener {

    private final MeterRegistry meters;
    private final ObservationRegistry observations;
    private final Map<String, AtomicInteger> permitsInUse = new ConcurrentHashMap<>();

    /** Records into {@code meters} and {@code observations} (use {@code ObservationRegistry.NOOP} for none). */
    public MicrometerGuardObserver(MeterRegistry meters, ObservationRegistry observations) {
        this.meters = meters;
        this.observations = observations;
    }

    @Override
    public <T> T observeAcquire(GuardKind kind, String name, Supplier<T> acquire) {
        return Observation.createNotStarted("turnstile.acquire", this.observations)
                .contextualName(kind.label() + " " + name)
                .lowCardinalityKeyValue("kind", kind.label())
                .lowCardinalityKeyValue("name", name)
                .observe(acquire);
    }

    @Override
    public void acquired(GuardKind kind, String name, Duration waited) {
        acquireTimer(kind, name, "acquired").record(waited);
        if (kind == GuardKind.SEMAPHORE) {
            inUse(name).incrementAndGet();
        }
    }

    @Override
    public void notAcquired(GuardKind kind, String name, Duration waited) {
        acquireTimer(kind, name, "timeout").record(waited);
        if (kind == GuardKind.SEMAPHORE) {
            Counter.builder("turnstile.semaphore.rejections")
                    .description("Permits refused because the semaphore was full for the whole wait")
                    .tag("name", name)
                    .register(this.meters)
                    .increment();
        }
    }

    @Override
    public void failed(GuardKind kind, String name, Duration waited, RuntimeException error) {
        acquireTimer(kind, name, "error").record(waited);
    }

    @Override
    public void released(GuardKind kind, String name, Duration held) {
        Timer.builder("turnstile.held")
                .description("How long a lock or permit was held by a guarded method")
                .tags("kind", kind.label(), "name", name)
                .register(this.meters)
                .record(held);
        if (kind == GuardKind.SEMAPHORE) {
            inUse(name).decrementAndGet();
        }
    }

    @Override
    public void leaseLost(LeaseLostEvent event) {
        Counter.builder("turnstile.lease.lost")
                .description("Leases lost while their holder still held them")
                .tags(
                        "kind",
                        event.kind().label(),
                        "reason",
                        event.reason().name().toLowerCase(java.util.Locale.ROOT))
                .register(this.meters)
                .increment();
    }

    @Override
    public void leaseRenewed(LeaseKind kind, String name) {
        Counter.builder("turnstile.lease.renewals")
                .description("Lease renewals by the watchdog")
                .tag("kind", kind.label())
                .register(this.meters)
                .increment();
    }

    private Timer acquireTimer(GuardKind kind, String name, String outcome) {
        return Timer.builder("turnstile.acquire")
                .description("Time spent acquiring a lock or permit for a guarded method")
                .tags("kind", kind.label(), "name", name, "outcome", outcome)
                .register(this.meters);
    }

    private AtomicInteger inUse(String name) {
        return this.permitsInUse.computeIfAbsent(name, key -> {
            AtomicInteger count = new AtomicInteger();
            Gauge.builder("turnstile.permits.in.use", count, AtomicInteger::get)
                    .description("Permits this node holds")
                    .tag("name", key)
                    .register(this.meters);
            return count;
        });
    }
}
