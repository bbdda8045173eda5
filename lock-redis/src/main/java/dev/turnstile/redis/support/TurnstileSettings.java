package dev.turnstile.redis.support;

import java.time.Duration;

/**
 * The options one {@code Turnstile} (or {@code Redlock}) was built with; immutable.
 *
 * @param keyPrefix the namespace of every key
 * @param defaultLease the lease when none is given, renewed by the watchdog
 * @param fenceRetention how long an unused fencing counter is kept
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

    /** Settings with no replicas required and the default lock cohort (32 holders, 20 ms). */
    public static TurnstileSettings of(String keyPrefix, Duration defaultLease, Duration fenceRetention) {
        return new TurnstileSettings(
                keyPrefix, defaultLease, fenceRetention, 0, Duration.ofMillis(100), 32, Duration.ofMillis(20));
    }
}
