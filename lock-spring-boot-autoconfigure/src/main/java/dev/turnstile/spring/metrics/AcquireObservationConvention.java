package dev.turnstile.spring.metrics;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names an acquisition's observation and its key values. Declare a bean of this type to change
 * them; {@link DefaultAcquireObservationConvention} is used otherwise.
 */
public interface AcquireObservationConvention extends ObservationConvention<AcquireObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof AcquireObservationContext;
    }
}
