package dev.turnstile.spring.metrics;

import dev.turnstile.redis.LeaseKind;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What an observation of one acquisition knows: the kind of guard, its name (the annotation's key
 * template, or the method's qualified name; never a resolved key) and, once the acquisition ended,
 * its {@link Outcome}.
 */
public final class AcquireObservationContext extends Observation.Context {

    private final LeaseKind kind;
    private final String guardName;
    private volatile @Nullable Outcome outcome;

    /** A context for acquiring {@code kind} {@code guardName}. */
    public AcquireObservationContext(LeaseKind kind, String guardName) {
        this.kind = kind;
        this.guardName = guardName;
    }

    /** Returns whether a lock or a semaphore permit is acquired. */
    public LeaseKind getKind() {
        return this.kind;
    }

    /** Returns the guard's name: its key template(s) or the method's qualified name. */
    public String getGuardName() {
        return this.guardName;
    }

    /** Returns how the acquisition ended, or null while it runs. */
    public @Nullable Outcome getOutcome() {
        return this.outcome;
    }

    /** Sets how the acquisition ended; called once, before the observation stops. */
    public void setOutcome(Outcome outcome) {
        this.outcome = outcome;
    }

    /** How an acquisition ended; {@link #tag()} is the {@code outcome} key value. */
    public enum Outcome {
        /** The lock or permit was acquired. */
        ACQUIRED("acquired"),
        /** Another owner held the lock for the whole wait. */
        BUSY("busy"),
        /** The semaphore had no free permit for the whole wait. */
        FULL("full"),
        /**
         * A guard that only observes found the lock busy or the semaphore full, and let the call run:
         * no refusal ({@code turnstile.observed.refusals} says which).
         */
        OBSERVED("observed"),
        /** The waiting thread was interrupted. */
        INTERRUPTED("interrupted"),
        /** Redis could not be reached. */
        UNAVAILABLE("unavailable"),
        /** Any other failure (a key expression that yields nothing, a refused Redis command). */
        ERROR("error");

        private final String tag;

        Outcome(String tag) {
            this.tag = tag;
        }

        /** Returns the value of the {@code outcome} key. */
        public String tag() {
            return this.tag;
        }
    }
}
