package dev.turnstile.redis;

import dev.turnstile.redis.internal.BuilderOptions;
import dev.turnstile.redis.internal.TurnstileOptions;
import java.time.Duration;

/**
 * The options that the builders of every {@link LockFactory} share, {@link Turnstile.Builder} and
 * {@code Redlock.Builder}: the key prefix, the default lease, the fencing counters' retention and
 * the listeners. Every one has a default. Not thread-safe; not for extension outside Turnstile.
 *
 * @param <B> the builder itself, which each method returns
 */
public abstract class LockFactoryBuilder<B extends LockFactoryBuilder<B>> {

    static {
        BuilderOptions.grant(builder -> builder.options);
    }

    private final TurnstileOptions.Builder options = TurnstileOptions.builder();

    /** For Turnstile's own builders only: {@link Turnstile.Builder} and {@code Redlock.Builder}. */
    protected LockFactoryBuilder() {}

    /**
     * Namespace of every key, {@code "turnstile"} by default; no trailing colon, no braces. On a
     * Redlock, the same on every master.
     */
    public B keyPrefix(String keyPrefix) {
        return BuilderOptions.set(self(), options -> options.keyPrefix(keyPrefix));
    }

    /**
     * Lease used when an acquire gives none; such leases are renewed by the watchdog at a third of
     * this time until released (on a Redlock, on a majority of the masters). 30 s by default: a
     * crashed holder blocks others this long.
     */
    public B defaultLease(Duration defaultLease) {
        return BuilderOptions.set(self(), options -> options.defaultLease(defaultLease));
    }

    /**
     * How long a fencing counter is kept (on a Redlock, on each master) after the lease it was set
     * with ends, 10 s by default: then the name leaves nothing in Redis. Tokens keep increasing after
     * it expires (they floor at the server's clock in microseconds), as long as the Redis server's
     * clock does not step back by more than the lease plus this.
     */
    public B fenceRetention(Duration fenceRetention) {
        return BuilderOptions.set(self(), options -> options.fenceRetention(fenceRetention));
    }

    /** Adds a listener that hears every lost lease of the instance built. */
    public B listener(LeaseListener listener) {
        return BuilderOptions.set(self(), options -> options.listener(listener));
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }
}
