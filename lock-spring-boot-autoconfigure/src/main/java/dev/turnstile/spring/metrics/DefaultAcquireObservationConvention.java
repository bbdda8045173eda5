package dev.turnstile.spring.metrics;

import io.micrometer.common.KeyValues;
import org.jspecify.annotations.Nullable;

/**
 * The observation {@code turnstile.acquire}, contextual name {@code "lock item:#id"}, with low
 * cardinality keys {@code kind} ({@code lock}, {@code semaphore}), {@code name} (the key template)
 * and, once the acquisition ended, {@code outcome} ({@code acquired}, {@code busy}, {@code full},
 * {@code interrupted}, {@code unavailable}, {@code error}). Micrometer's meter handler turns it into
 * the timer {@code turnstile.acquire} with those tags and {@code error}, and the long task timer
 * {@code turnstile.acquire.active} (tags {@code kind}, {@code name}) for the waits in progress.
 */
public class DefaultAcquireObservationConvention implements AcquireObservationConvention {

    /** The observation's name, and so the timer's. */
    public static final String NAME = "turnstile.acquire";

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public @Nullable String getContextualName(AcquireObservationContext context) {
        return context.getKind().label() + " " + context.getGuardName();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(AcquireObservationContext context) {
        KeyValues keyValues = KeyValues.of("kind", context.getKind().label(), "name", context.getGuardName());
        AcquireObservationContext.Outcome outcome = context.getOutcome();
        return outcome == null ? keyValues : keyValues.and("outcome", outcome.tag());
    }
}
