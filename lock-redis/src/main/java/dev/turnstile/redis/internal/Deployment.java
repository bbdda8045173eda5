package dev.turnstile.redis.internal;

/**
 * What every deployment that grants leases shares, one Redis deployment ({@link RedisDeployment})
 * or the masters of a Redlock ({@link RedlockEngine}) alike: its options, the leases' shared
 * services, and the key layout under its prefix. Thread-safe.
 */
abstract class Deployment {

    private final TurnstileOptions options;
    private final Leases leases;
    private final RedisKeys keys;

    Deployment(TurnstileOptions options) {
        this.options = options;
        this.leases = new Leases(options);
        this.keys = new RedisKeys(options.keyPrefix());
    }

    TurnstileOptions options() {
        return this.options;
    }

    Leases leases() {
        return this.leases;
    }

    RedisKeys keys() {
        return this.keys;
    }
}
