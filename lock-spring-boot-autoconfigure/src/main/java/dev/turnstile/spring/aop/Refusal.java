package dev.turnstile.spring.aop;

import java.util.Locale;

/** Why a guard would refuse a call. */
public enum Refusal {
    /** The lock was held by another owner for the whole wait. */
    BUSY,
    /** Every permit of the semaphore was held for the whole wait. */
    FULL,
    /** Redis could not be reached. */
    UNAVAILABLE;

    /** Returns the lower-case name, as in metric tags: {@code busy}, {@code full}, {@code unavailable}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
