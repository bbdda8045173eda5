package dev.turnstile.redis.internal;

import java.time.Duration;

/**
 * The options one {@code Turnstile} (or {@code Redlock}) was built with; immutable.
 *
 * @param keyPrefix the namespace of every key
 * @param defaultLease the lease when none is given, renewed by the watchdog
 * @param fenceRetention how long a fencing counter is kept after the lease it was set with ends
 * @param minReplicas replicas that must acknowledge a grant ({@code WAIT}); 0 for none
 * @param replicaTimeout how long a grant waits for them
 * @param cohortHolders the most holders one lock grant in Redis serves in this process
 * @param cohortMaxAge how long after its grant in Redis a lock may still be passed on locally
 */
public record TurnstileSettings(
        String keyPrefix,
        Duration defaultLease,
        Duration fenceRetention,
        int minReplicas,
        Duration replicaTimeout,
        int cohortHolders,
        Duration cohortMaxAge) {

    /**
     * The time to live, in milliseconds, of a fencing counter set by a grant of {@code lease}: the
     * lease and then the retention (the scripts add how far the counter is ahead of the server's
     * clock). Once it expires the name leaves nothing in Redis, and the next token floors at the
     * server's clock in microseconds, which by then is above every token of the last grant unless
     * the clock stepped back by more than this ttl.
     */
    public String fenceTtlMillis(Duration lease) {
        return Long.toString(lease.plus(this.fenceRetention).toMillis());
    }

    /** Settings with no replicas required and the default lock cohort (32 holders, 20 ms). */
    public static TurnstileSettings of(String keyPrefix, Duration defaultLease, Duration fenceRetention) {
        return new TurnstileSettings(
                keyPrefix, defaultLease, fenceRetention, 0, Duration.ofMillis(100), 32, Duration.ofMillis(20));
    }
}
