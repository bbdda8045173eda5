package dev.turnstile.redis;

import dev.turnstile.redis.internal.Arguments;
import dev.turnstile.redis.internal.BuilderOptions;
import dev.turnstile.redis.internal.TurnstileEngine;
import dev.turnstile.redis.semaphore.RedisSemaphore;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import redis.clients.jedis.UnifiedJedis;

/**
 * Entry point: hands out locks and semaphores that live in one Redis deployment.
 *
 * <pre>{@code
 * Turnstile turnstile = Turnstile.builder(RedisClient.create("localhost", 6379))
 *         .keyPrefix("turnstile")
 *         .defaultLease(Duration.ofSeconds(30))
 *         .build();
 *
 * try (Lease lease = turnstile.lock("item:42").acquire(Duration.ofSeconds(5), null)) {
 *     // only one process in the whole deployment runs this at a time
 * }
 * }</pre>
 *
 * <p>One instance per application is enough: it owns the watchdog thread and the one pub/sub
 * connection that wakes waiters. It is thread-safe. When built, it reads in the background whether
 * Redis may evict keys ({@code INFO memory}) and logs one WARN per server that may: see {@link
 * TurnstileDiagnostics#eviction()}. {@link #close()} stops renewing (held leases
 * then expire after their lease time) and closes the pub/sub connection; it does not close the
 * Jedis client, which belongs to the caller.
 */
public final class Turnstile implements LockFactory, AutoCloseable {

    private final TurnstileEngine engine;

    private Turnstile(Builder builder) {
        this.engine =
                new TurnstileEngine(builder.redis, BuilderOptions.of(builder).build());
    }

    /**
     * Starts a builder over a Jedis client: {@code RedisClient} for one server, {@code
     * RedisSentinelClient} for Sentinel, {@code RedisClusterClient} for a cluster (from Jedis 7.2,
     * and the only ones in Jedis 8); before Jedis 7.2, {@code JedisPooled}, {@code JedisSentineled}
     * and {@code JedisCluster}.
     */
    public static Builder builder(UnifiedJedis redis) {
        return new Builder(Objects.requireNonNull(redis, "'redis' must not be null"));
    }

    /**
     * Returns the lock on {@code name}.
     *
     * @throws IllegalArgumentException if {@code name} is null or blank
     */
    @Override
    public NamedLock lock(String name) {
        return this.engine.lock(List.of(Arguments.requireName(name, "name")));
    }

    /**
     * Returns one lock over all {@code names}: acquired all-or-nothing, in sorted order.
     *
     * @throws IllegalArgumentException if there is no name, or one is null or blank
     */
    @Override
    public NamedLock lock(Collection<String> names) {
        return this.engine.lock(names);
    }

    /**
     * Returns the counting semaphore {@code name} with at most {@code limit} permits held at once;
     * call {@link RedisSemaphore#fair()} on it for arrival-order service.
     *
     * @throws IllegalArgumentException if {@code name} is null or blank or {@code limit} is below 1
     */
    public RedisSemaphore semaphore(String name, int limit) {
        return this.engine.semaphore(name, limit);
    }

    /** Returns health and inspection calls for operators and health checks. */
    public TurnstileDiagnostics diagnostics() {
        return new TurnstileDiagnostics(this.engine);
    }

    @Override
    public void close() {
        this.engine.close();
    }

    /** Options of a {@link Turnstile}; every one has a default. */
    public static final class Builder extends LockFactoryBuilder<Builder> {

        private final UnifiedJedis redis;

        private Builder(UnifiedJedis redis) {
            super();
            this.redis = redis;
        }

        /**
         * Threads that time lease renewals, 1 by default; each renewal's Redis call runs on a pooled
         * thread that the pool adds as needed, so one stuck server never delays the others.
         */
        public Builder watchdogThreads(int watchdogThreads) {
            return BuilderOptions.set(this, options -> options.watchdogThreads(watchdogThreads));
        }

        /**
         * Makes every grant wait until {@code replicas} replicas have it ({@code WAIT}, on the same
         * connection, at most {@code timeout}); a grant that reaches fewer is released and the
         * acquire fails with {@link RedisUnavailableException}. Closes the window in which a
         * failover to a replica that never received the grant lets a second owner in. It is not
         * consensus: a replica that acknowledged can still lose the write, and a promoted replica
         * that did not acknowledge can still be chosen. Off (0) by default.
         */
        public Builder minReplicas(int replicas, Duration timeout) {
            return BuilderOptions.set(this, options -> options.minReplicas(replicas, timeout));
        }

        /**
         * Bounds the lock cohort: when a holder releases while other threads of this process queue
         * for the same name, the grant in Redis passes to the next of them without a Redis round trip
         * (each with its own, strictly larger fencing token), for at most {@code holders} holders in
         * a row and within {@code maxAge} of the grant; then the lock goes back to Redis, and a
         * process that was waiting gets its turn. 32 holders and 20 ms by default; {@code holders}
         * of 1 turns local hand-off off. The same bounds apply to a semaphore permit passed between
         * the threads of this process that wait for it. These are limits the code sets; the tests
         * show their effects (tokens in hold order, fair shares between processes), not the bounds
         * as measurements.
         */
        public Builder lockCohort(int holders, Duration maxAge) {
            return BuilderOptions.set(this, options -> options.lockCohort(holders, maxAge));
        }

        /**
         * Sets whether a thread queued for a lock behind another thread of this process waits awake
         * for a turn that is due soon ({@link Thread#yield()} between looks, at most 200 µs) rather
         * than park at once: {@link AwakeWaiting#AUTO} by default, which waits awake unless the
         * process runs under a CPU quota. It saves a wake-up per hand-off on a hot key and costs CPU;
         * it never changes who gets the lock or in what order.
         */
        public Builder awakeWaiting(AwakeWaiting awakeWaiting) {
            return BuilderOptions.set(this, options -> options.awakeWaiting(awakeWaiting));
        }

        /**
         * Builds the instance. It makes no Redis call on the calling thread; the eviction check
         * ({@link TurnstileDiagnostics#eviction()}) runs on a background thread, logs a WARN for each
         * server that may evict keys, and never fails.
         */
        public Turnstile build() {
            return new Turnstile(this);
        }
    }
}
