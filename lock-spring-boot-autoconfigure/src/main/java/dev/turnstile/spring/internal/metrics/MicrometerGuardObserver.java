package dev.turnstile.spring.internal.metrics;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LeaseListener;
import dev.turnstile.redis.LeaseLostEvent;
import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.spring.aop.GuardObserver;
import dev.turnstile.spring.aop.Refusal;
import dev.turnstile.spring.metrics.AcquireObservationContext;
import dev.turnstile.spring.metrics.AcquireObservationConvention;
import dev.turnstile.spring.metrics.DefaultAcquireObservationConvention;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
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
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Records guarded methods and leases in Micrometer. Every meter is tagged by the annotation's key
 * template (or the method's qualified name), never by a resolved key, so cardinality stays
 * bounded.
 *
 * <ul>
 *   <li>{@code turnstile.acquire} (timer): time waited, by {@code kind}, {@code name}, {@code
 *       outcome} ({@code acquired}, {@code busy}, {@code full}, {@code observed}: a guard that only
 *       observes would have refused and let the call run, {@code interrupted}, {@code
 *       unavailable}, {@code error}) and {@code error} (the exception's simple class name, or {@code
 *       none}). It is the meter of the {@code turnstile.acquire} {@link Observation}, recorded by
 *       Micrometer's meter observation handler: one meter per name, one set of tag keys, each
 *       acquisition counted once; the same observation is the acquisition's span in a trace.
 *       {@code turnstile.acquire.active} (long task timer, by {@code kind} and {@code name}) counts
 *       the waits in progress;
 *   <li>{@code turnstile.held} (timer): how long a lock or permit was held;
 *   <li>{@code turnstile.semaphore.rejections} (counter): permits refused (never a call that a
 *       semaphore which only observes let run);
 *   <li>{@code turnstile.permits.in.use} (gauge): permits this node holds, per semaphore;
 *   <li>{@code turnstile.lease.renewals} (counter) and {@code turnstile.lease.lost} (counter, by
 *       {@code kind} and {@code reason}): the watchdog's work and the leases lost while held, found
 *       by a renewal, an extension, a check before a commit or the release;
 *   <li>{@code turnstile.observed.refusals} (counter, by {@code kind}, {@code name} and {@code
 *       reason}: {@code busy}, {@code full}, {@code unavailable}): calls a guard that only observes
 *       would have refused, and let run;
 *   <li>{@code turnstile.semaphore.concurrency} (distribution summary with histogram buckets, by
 *       {@code name}): how many calls of one key ran at once across every node when a call entered,
 *       itself included; sampled at each permit granted, and at each call an observed full
 *       semaphore let run (then the permits held plus one). Its quantiles are the numbers to choose
 *       a limit from; one Redis call per sample;
 *   <li>{@code turnstile.lock.wait} (timer with histogram buckets, by {@code name} and {@code
 *       outcome}: {@code acquired} or {@code busy}): how long a lock was waited for (a lock that only
 *       observes records its acquisitions, not the calls it let run).
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

    /** Exact buckets up to 10 calls at once, where most per-key limits are chosen; coarser above. */
    private static final double[] CONCURRENCY_BUCKETS = {
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20, 25, 30, 40, 50, 75, 100, 150, 200, 300, 500, 1000
    };

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
            LeaseKind kind, String name, Supplier<Optional<? extends Lease>> acquire) {
        return observeAcquire(kind, name, true, acquire);
    }

    @Override
    public Optional<? extends Lease> observeAcquire(
            LeaseKind kind, String name, boolean enforced, Supplier<Optional<? extends Lease>> acquire) {
        AcquireObservationContext context = new AcquireObservationContext(kind, name);
        Observation observation = Observation.createNotStarted(
                        this.convention, DEFAULT_CONVENTION, () -> context, this.observations)
                .start();
        try (Observation.Scope scope = observation.openScope()) {
            Optional<? extends Lease> lease = acquire.get();
            context.setOutcome(
                    lease.isPresent()
                            ? AcquireObservationContext.Outcome.ACQUIRED
                            : !enforced
                                    ? AcquireObservationContext.Outcome.OBSERVED
                                    : kind == LeaseKind.LOCK
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
    public void acquired(LeaseKind kind, String name, Duration waited) {
        if (kind == LeaseKind.SEMAPHORE) {
            inUse(name).incrementAndGet();
        } else {
            lockWait(name, "acquired", waited);
        }
    }

    @Override
    public void notAcquired(LeaseKind kind, String name, Duration waited) {
        if (kind == LeaseKind.LOCK) {
            lockWait(name, "busy", waited);
        }
        if (kind == LeaseKind.SEMAPHORE) {
            Counter.builder("turnstile.semaphore.rejections")
                    .description("Permits refused because the semaphore was full for the whole wait")
                    .tag("name", name)
                    .register(this.meters)
                    .increment();
        }
    }

    @Override
    public void released(LeaseKind kind, String name, Duration held) {
        Timer.builder("turnstile.held")
                .description("How long a lock or permit was held by a guarded method")
                .tags("kind", kind.label(), "name", name)
                .register(this.meters)
                .record(held);
        if (kind == LeaseKind.SEMAPHORE) {
            inUse(name).decrementAndGet();
        }
    }

    @Override
    public void refusalObserved(LeaseKind kind, String name, Refusal reason) {
        Counter.builder("turnstile.observed.refusals")
                .description("Calls a guard that only observes would have refused, and let run")
                .tags("kind", kind.label(), "name", name, "reason", reason.label())
                .register(this.meters)
                .increment();
    }

    @Override
    public void semaphoreEntered(String name, IntSupplier concurrency) {
        int value;
        try {
            value = concurrency.getAsInt();
        } catch (RuntimeException e) {
            return; // Redis could not be read: no sample
        }
        DistributionSummary.builder("turnstile.semaphore.concurrency")
                .description("Calls of one semaphore key running at once across every node when a call entered,"
                        + " itself included")
                .tag("name", name)
                .serviceLevelObjectives(CONCURRENCY_BUCKETS)
                .register(this.meters)
                .record(value);
    }

    private void lockWait(String name, String outcome, Duration waited) {
        Timer.builder("turnstile.lock.wait")
                .description("How long a guarded method waited for its lock")
                .tags("name", name, "outcome", outcome)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(1))
                .register(this.meters)
                .record(waited);
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
