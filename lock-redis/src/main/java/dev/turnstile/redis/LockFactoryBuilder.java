package dev.turnstile.redis;

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

    private final TurnstileOptions.Builder options;

    /** Collects into {@code options} (only Turnstile's own builders can name its type). */
    protected LockFactoryBuilder(TurnstileOptions.Builder options) {
        this.options = options;
    }

    /** The options collected so far (only Turnstile's own builders can name its type). */
    protected final TurnstileOptions.Builder options() {
        return this.options;
    }

    /**
     * Namespace of every key, {@code "turnstile"} by default; no trailing colon, no braces. On a
     * Redlock, the same on every master.
     */
    public B keyPrefix(String keyPrefix) {
        this.options.keyPrefix(keyPrefix);
        return self();
    }

    /**
     * Lease used when an acquire gives none; such leases are renewed by the watchdog at a third of
     * this time until released (on a Redlock, on a majority of the masters). 30 s by default: a
     * crashed holder blocks others this long.
     */
    public B defaultLease(Duration defaultLease) {
        this.options.defaultLease(defaultLease);
        return self();
    }

    /**
     * How long a fencing counter is kept (on a Redlock, on each master) after the lease it was set
     * with ends, 10 s by default: then the name leaves nothing in Redis. Tokens keep increasing after
     * it expires (they floor at the server's clock in microseconds), as long as the Redis server's
     * clock does not step back by more than the lease plus this.
     */
    public B fenceRetention(Duration fenceRetention) {
        this.options.fenceRetention(fenceRetention);
        return self();
    }

    /** Adds a listener that hears every lost lease of the instance built. */
    public B listener(LeaseListener listener) {
        this.options.listener(listener);
        return self();
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }
}
