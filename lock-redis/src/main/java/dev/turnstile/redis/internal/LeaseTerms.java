package dev.turnstile.redis.internal;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The terms of one lease, decided once where an acquire enters: the lease the caller gave, fixed
 * (never renewed, at most topped up to its planned end), or, when the caller gave none, the default
 * lease, renewed by the watchdog at a third of its time until released. They travel unchanged to the
 * acquire script (as the time to live) and to the {@link ManagedLease}.
 *
 * @param leaseTime the time to live of each grant and renewal
 * @param renewedByWatchdog whether the watchdog renews the lease (the default lease) or not (a
 *     lease the caller gave)
 */
record LeaseTerms(Duration leaseTime, boolean renewedByWatchdog) {

    /**
     * The terms of an acquire given {@code leaseTime}.
     *
     * @param leaseTime the caller's lease, or null for the default one of {@code options}
     * @throws IllegalArgumentException if {@code leaseTime} is given and not positive
     */
    static LeaseTerms of(@Nullable Duration leaseTime, TurnstileOptions options) {
        return leaseTime == null
                ? new LeaseTerms(options.defaultLease(), true)
                : new LeaseTerms(Arguments.requireLease(leaseTime, "leaseTime"), false);
    }

    /** The lease time in milliseconds, as the scripts take it. */
    String millis() {
        return Long.toString(this.leaseTime.toMillis());
    }
}
