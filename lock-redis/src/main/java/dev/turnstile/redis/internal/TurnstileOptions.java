package dev.turnstile.redis.internal;

import dev.turnstile.redis.AwakeWaiting;
import dev.turnstile.redis.LeaseListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The options of one {@code Turnstile} or {@code Redlock}, checked once, by {@link Builder}, which
 * both public builders delegate to; immutable. (Redlock uses the ones it has a setter for; the
 * others keep their defaults there.)
 *
 * @param keyPrefix the namespace of every key
 * @param defaultLease the lease when none is given, renewed by the watchdog
 * @param fenceRetention how long a fencing counter is kept after the lease it was set with ends
 * @param watchdogThreads threads of the watchdog scheduler
 * @param minReplicas replicas that must acknowledge a grant ({@code WAIT}); 0 for none
 * @param replicaTimeout how long a grant waits for them
 * @param cohortHolders the most holders one lock grant (or semaphore permit) in Redis serves in this
 *     process
 * @param cohortMaxAge how long after its grant in Redis a lock (or permit) may still be passed on
 *     locally
 * @param awakeWaiting whether a thread queued behind another of this process for a lock waits awake
 *     for a turn due soon
 * @param listeners the listeners that hear every lost lease and every renewal
 */
public record TurnstileOptions(
        String keyPrefix,
        Duration defaultLease,
        Duration fenceRetention,
        int watchdogThreads,
        int minReplicas,
        Duration replicaTimeout,
        int cohortHolders,
        Duration cohortMaxAge,
        AwakeWaiting awakeWaiting,
        List<LeaseListener> listeners) {

    /** The lock cohort's holders per grant in Redis unless configured. */
    public static final int DEFAULT_COHORT_HOLDERS = 32;

    /** Returns a builder holding every default. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The time to live, in milliseconds, of a fencing counter set by a grant of {@code lease}: the
     * lease and then the retention (the scripts add how far the counter is ahead of the server's
     * clock). Once it expires the name leaves nothing in Redis, and the next token floors at the
     * server's clock in microseconds, which by then is above every token of the last grant unless
     * the clock stepped back by more than this ttl.
     */
    String fenceTtlMillis(Duration lease) {
        return Long.toString(lease.plus(this.fenceRetention).toMillis());
    }

    /** The fencing counter's ttl in ms for a block of {@code reserve} tokens of a lease ({@link FencingCounter#blockTtlMillis}). */
    String fenceBlockTtlMillis(Duration lease, int reserve) {
        return FencingCounter.blockTtlMillis(lease.plus(this.fenceRetention).toMillis(), reserve);
    }

    /**
     * Collects and checks the options; each setter throws {@link IllegalArgumentException} naming
     * the option and quoting the value it refuses. Not thread-safe.
     */
    public static final class Builder {

        private String keyPrefix = "turnstile";
        private Duration defaultLease = Duration.ofSeconds(30);
        private Duration fenceRetention = Duration.ofSeconds(10);
        private int watchdogThreads = 1;
        private int minReplicas;
        private Duration replicaTimeout = Duration.ofMillis(100);
        private int cohortHolders = DEFAULT_COHORT_HOLDERS;
        private Duration cohortMaxAge = Duration.ofMillis(20);
        private AwakeWaiting awakeWaiting = AwakeWaiting.AUTO;
        private final List<LeaseListener> listeners = new ArrayList<>();

        private Builder() {}

        /** Sets the namespace of every key: not blank, no trailing colon, no braces. */
        public void keyPrefix(String keyPrefix) {
            Arguments.requireName(keyPrefix, "keyPrefix");
            if (keyPrefix.endsWith(":") || keyPrefix.contains("{") || keyPrefix.contains("}")) {
                throw new IllegalArgumentException(
                        "'keyPrefix' must not end with ':' or contain braces but was '" + keyPrefix + "'");
            }
            this.keyPrefix = keyPrefix;
        }

        /** Sets the default lease: positive, whole milliseconds kept. */
        public void defaultLease(Duration defaultLease) {
            this.defaultLease = Arguments.requireLease(defaultLease, "defaultLease");
        }

        /** Sets how long a fencing counter outlives its lease: positive. */
        public void fenceRetention(Duration fenceRetention) {
            this.fenceRetention = Arguments.requirePositive(fenceRetention, "fenceRetention");
        }

        /** Sets the watchdog's scheduler threads: at least 1. */
        public void watchdogThreads(int watchdogThreads) {
            if (watchdogThreads < 1) {
                throw new IllegalArgumentException("'watchdogThreads' must be at least 1 but was " + watchdogThreads);
            }
            this.watchdogThreads = watchdogThreads;
        }

        /** Sets the replicas a grant must reach (zero or more) and how long it waits for them (positive). */
        public void minReplicas(int replicas, Duration timeout) {
            if (replicas < 0) {
                throw new IllegalArgumentException("'minReplicas' must be zero or positive but was " + replicas);
            }
            this.minReplicas = replicas;
            this.replicaTimeout = Arguments.requirePositive(timeout, "replicaTimeout");
        }

        /** Sets the lock cohort's bounds: 1 to 1,000,000 holders, a positive age. */
        public void lockCohort(int holders, Duration maxAge) {
            if (holders < 1 || holders > 1_000_000) {
                throw new IllegalArgumentException("'holders' must be between 1 and 1000000 but was " + holders);
            }
            this.cohortHolders = holders;
            this.cohortMaxAge = Arguments.requirePositive(maxAge, "maxAge");
        }

        /** Sets whether a thread queued for a lock behind another of this process waits awake: not null. */
        public void awakeWaiting(AwakeWaiting awakeWaiting) {
            this.awakeWaiting = Objects.requireNonNull(
                    awakeWaiting, "'awakeWaiting' must not be null: use AUTO (the default), ALWAYS or NEVER");
        }

        /** Adds a listener of every lost lease and renewal: not null. */
        public void listener(LeaseListener listener) {
            this.listeners.add(Objects.requireNonNull(listener, "'listener' must not be null"));
        }

        /** Returns the options set so far. */
        public TurnstileOptions build() {
            return new TurnstileOptions(
                    this.keyPrefix,
                    this.defaultLease,
                    this.fenceRetention,
                    this.watchdogThreads,
                    this.minReplicas,
                    this.replicaTimeout,
                    this.cohortHolders,
                    this.cohortMaxAge,
                    this.awakeWaiting,
                    List.copyOf(this.listeners));
        }
    }
}
