package dev.turnstile.spring.metrics;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LeaseListener;
import dev.turnstile.redis.LeaseLostEvent;
import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.spring.aop.GuardKind;
import dev.turnstile.spring.aop.GuardObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Records guarded methods and leases in Micrometer. Every meter is tagged by the annotation's key
 * template (or the method's qualified name), never by a resolved key, so cardinality stays
 * bounded.
 *
 * <ul>
 *   <li>{@code turnstile.acquire} (timer): time waited, by {@code kind}, {@code name}, {@code
 *       outcome} ({@code acquired}, {@code busy}, {@code full}, {@code interrupted}, {@code
 *       unavailable}, {@code error}) and {@code error} (the exception's simple class name, or {@code
 *       none}). It is the meter of the {@code turnstile.acquire} {@link Observation}, recorded by
 *       Micrometer's meter observation handler: one meter per name, one set of tag keys, each
 *       acquisition counted once; the same observation is the acquisition's span in a trace.
 *       {@code turnstile.acquire.active} (long task timer, by {@code kind} and {@code name}) counts
 *       the waits in progress;
 *   <li>{@code turnstile.held} (timer): how long a lock or permit was held;
 *   <li>{@code turnstile.semaphore.rejections} (counter): permits refused;
 *   <li>{@code turnstile.permits.in.use} (gauge): permits this node holds, per semaphore;
 *   <li>{@code turnstile.lease.renewals} (counter) and {@code turnstile.lease.lost} (counter, by
 *       {@code kind} and {@code reason}): the watchdog's work and the leases lost while held, found
 *       by a renewal, an extension, a check before a commit or the release.
 * </ul>
 *
 * <p>Without an application {@link ObservationRegistry} ({@code ObservationRegistry.NOOP}), the
 * observation is recorded in a registry of its own that only feeds the timers, so the metrics do
 * not depend on tracing. An application registry must have a meter observation handler for the
 * timers (Spring Boot's actuator registers one when a {@code MeterRegistry} is present).
 */
public final class MicrometerGuardObserver implements GuardObserver, LeaseListener {

    private static final AcquireObservationConvention DEFAULT_CONVENTION = new DefaultAcquireObservationConvention();

    private final MeterRegistry meters;
    private final ObservationRegistry observations;
    private final @Nullable AcquireObservationConvention convention;
    private final Map<String, AtomicInteger> permitsInUse = new ConcurrentHashMap<>();

    /**
     * Records into {@code meters} and {@code observations}; {@code ObservationRegistry.NOOP}: the
     * timers only, no spans.
     */
    public MicrometerGuardObserver(MeterRegistry meters, ObservationRegistry observations) {
        this(meters, observations, null);
    }

    /**
     * Records into {@code meters} and {@code observations}, naming acquisitions by {@code
     * convention} (null: {@link DefaultAcquireObservationConvention}).
     */
    public MicrometerGuardObserver(
            MeterRegistry meters, ObservationRegistry observations, @Nullable AcquireObservationConvention convention) {
        this.meters = meters;
        this.observations = observations.isNoop() ? metersOnly(meters) : observations;
        this.convention = convention;
    }

    private static ObservationRegistry metersOnly(MeterRegistry meters) {
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        return registry;
    }

    @Override
    public Optional<? extends Lease> observeAcquire(
            GuardKind kind, String name, Supplier<Optional<? extends Lease>> acquire) {
        AcquireObservationContext context = new AcquireObservationContext(kind, name);
        Observation observation = Observation.createNotStarted(
                        this.convention, DEFAULT_CONVENTION, () -> context, this.observations)
                .start();
        try (Observation.Scope scope = observation.openScope()) {
            Optional<? extends Lease> lease = acquire.get();
            context.setOutcome(
                    lease.isPresent()
                            ? AcquireObservationContext.Outcome.ACQUIRED
                            : kind == GuardKind.LOCK
                                    ? AcquireObservationContext.Outcome.BUSY
                                    : AcquireObservationContext.Outcome.FULL);
            return lease;
        } catch (RuntimeException | Error e) {
            context.setOutcome(outcomeOf(e));
            observation.error(e);
            throw e;
        } finally {
            observation.stop();
        }
    }

    private static AcquireObservationContext.Outcome outcomeOf(Throwable error) {
        if (error instanceof LockAcquisitionException busy && busy.isInterrupted()) {
            return AcquireObservationContext.Outcome.INTERRUPTED;
        }
        if (error instanceof RedisUnavailableException) {
            return AcquireObservationContext.Outcome.UNAVAILABLE;
        }
        return AcquireObservationContext.Outcome.ERROR;
    }

    @Override
    public void acquired(GuardKind kind, String name, Duration waited) {
        if (kind == GuardKind.SEMAPHORE) {
            inUse(name).incrementAndGet();
        }
    }

    @Override
    public void notAcquired(GuardKind kind, String name, Duration waited) {
        if (kind == GuardKind.SEMAPHORE) {
            Counter.builder("turnstile.semaphore.rejections")
                    .description("Permits refused because the semaphore was full for the whole wait")
                    .tag("name", name)
                    .register(this.meters)
                    .increment();
        }
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
