package dev.turnstile.spring.internal.metrics;

import dev.turnstile.spring.metrics.DefaultAcquireObservationConvention;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import org.jspecify.annotations.Nullable;

/**
 * Gives the meters that Micrometer's observation handler makes of the {@code turnstile.acquire}
 * observation a description (Prometheus's {@code HELP}), which the handler leaves empty: the timer
 * {@code turnstile.acquire} and the long task timer {@code turnstile.acquire.active}. Add it to the
 * registry before any meter is registered (Spring Boot applies {@link MeterFilter} beans so).
 */
public final class AcquireMeterDescriptions implements MeterFilter {

    static final String ACQUIRE = "Time a guarded method waited for its lock or permit, by outcome";
    static final String ACTIVE = "Guarded methods waiting for their lock or permit now";

    @Override
    public Meter.Id map(Meter.Id id) {
        if (id.getDescription() != null) {
            return id;
        }
        String name = id.getName();
        @Nullable
        String description = name.equals(DefaultAcquireObservationConvention.NAME)
                ? ACQUIRE
                : name.equals(DefaultAcquireObservationConvention.NAME + ".active") ? ACTIVE : null;
        return description == null
                ? id
                : new Meter.Id(name, Tags.of(id.getTagsAsIterable()), id.getBaseUnit(), description, id.getType());
    }
}
