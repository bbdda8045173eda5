package dev.turnstile.redis.lock;

import dev.turnstile.redis.LockFactory;
import dev.turnstile.redis.LockFactoryBuilder;
import dev.turnstile.redis.NamedLock;
import dev.turnstile.redis.TurnstileDiagnostics.Eviction;
import dev.turnstile.redis.TurnstileDiagnostics.HeldLock;
import dev.turnstile.redis.internal.Arguments;
import dev.turnstile.redis.internal.RedlockEngine;
import dev.turnstile.redis.internal.TurnstileOptions;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redlock algorithm over N independent Redis masters (not replicas of each other, not a
 * cluster): a lock is granted when a majority of the masters granted it within its validity.
 *
 * <pre>{@code
 * try (Redlock redlock = Redlock.of(List.of(a, b, c, d, e))) {
 *     try (Lease lease = redlock.lock("invoice:9").acquire(Duration.ofSeconds(2), Duration.ofSeconds(10))) {
 *         ...
 *     }
 * }
 * }</pre>
 *
 * <p>Acquire runs {@code SET NX PX} (and the fencing counter) on every master in parallel, each
 * call bounded by a small per-node timeout. It succeeds only with a majority and a positive
 * validity: lease − elapsed − (1% of the lease + 2 ms) for clock drift. Otherwise it releases on
 * every master and tries again after a random pause (up to the retry delay) until the wait has
 * passed: the wait is an acquire's only deadline. A lease
 * whose validity already ran out is never returned; the lease's local deadline is its validity.
 * Extension (and the watchdog's renewal) must reach a majority within the validity. Release goes to
 * every master.
 *
 * <p>The fencing token is proposed by the client (its clock in microseconds) and every master of
 * a round is offered the same one; a master grants only with it, and only if it is above the
 * master's counter for the name (with no counter: not more than 1 s below the master's clock). So
 * the token is on every master that granted it, and any later majority, which shares a master with
 * that one, must be offered a higher one: tokens strictly increase across changing majorities,
 * whatever the clients' and the masters' clocks say, <em>as long as no master loses its
 * counter</em> (a restart without persistence, eviction). A client whose clock is behind the
 * counters, or more than 1 s behind a master's clock, is told the least token each master would
 * take (a master with no counter records it) and offers the greatest of them in a second round;
 * one acquire is so designed to take one round trip to the masters in the usual case, two after a
 * client with a faster clock or with masters' clocks ahead (the tests show grants within the wait
 * with clocks an hour apart; they do not count rounds): no assumption is made on clocks being set
 * alike.
 * It does not make Redlock a consensus protocol; see the README.
 *
 * <p>A release that more than a minority of the masters answer "not this owner's" proves the
 * lease lost, and reports it as one server does; a release that some masters did not answer in
 * time is no loss. {@link #close()} gives back the connections it keeps and those on their way
 * back, whatever state a master is in; a call still running through a client's pool gives its
 * own back when it ends (within that client's socket timeout).
 *
 * <p>A master whose one-server client ({@code RedisClient}, or {@code JedisPooled} before Jedis
 * 7.2) holds an idle connection is called on the caller's thread:
 * the call is written to every such master first, then the replies are read, each within the node
 * timeout. Any other master, and one whose last such call did not answer in time, is called on its
 * own small bounded pool until it answers again, so a stalled master never multiplies threads nor
 * holds a call up beyond the node timeout. When unreachable or failing masters, not other owners,
 * keep an acquire from a majority, it ends in a {@link dev.turnstile.redis.RedisUnavailableException}
 * naming them.
 *
 * <p>Thread-safe; one instance per set of masters. {@link #close()} stops the watchdog and the
 * masters' pools, not the clients.
 */
public final class Redlock implements LockFactory, AutoCloseable {

    private final RedlockEngine engine;

    private Redlock(Builder builder, TurnstileOptions options) {
        this.engine =
                new RedlockEngine(builder.masters, builder.names, options, builder.nodeTimeout, builder.retryDelay);
    }

    /** Redlock over {@code masters} with the defaults; at least three masters, an odd number advised. */
    public static Redlock of(List<? extends UnifiedJedis> masters) {
        return builder(masters).build();
    }

    /** A builder over {@code masters}. */
    public static Builder builder(List<? extends UnifiedJedis> masters) {
        return new Builder(masters);
    }

    /**
     * Returns the lock {@code name} over all masters.
     *
     * @throws IllegalArgumentException if {@code name} is null or blank
     */
    @Override
    public NamedLock lock(String name) {
        return lock(List.of(Arguments.requireName(name, "name")));
    }

    /**
     * Returns one lock over all {@code names}, each taken on a majority of the masters: one by one
     * in sorted order within one wait, releasing the ones taken if a later one cannot be.
     *
     * @throws IllegalArgumentException if there is no name, or one is null or blank
     */
    @Override
    public NamedLock lock(Collection<String> names) {
        return this.engine.lock(names);
    }

    /**
     * Returns the locks held on a majority of the masters now, as seen by scanning each master
     * (for operators; SCAN, not for hot paths): one entry per lock and owner, with the shortest
     * time to live among the masters that hold it. Masters that do not answer are left out.
     */
    public List<HeldLock> heldLocks() {
        return this.engine.heldLocks();
    }

    /**
     * Reads whether each master may evict keys now ({@code INFO memory}: {@code maxmemory} and
     * {@code maxmemory-policy}), one command per master; a master that refused {@code INFO} is not
     * asked again. Logs a WARN the first time a master (and policy) that may evict is seen; the
     * same check runs once in the background when the instance is built. Never throws.
     */
    public List<Eviction> eviction() {
        return this.engine.eviction();
    }

    /** Returns the number of masters. */
    public int masterCount() {
        return this.engine.masterCount();
    }

    /** Returns how many masters must grant a lock: a majority. */
    public int quorum() {
        return this.engine.quorum();
    }

    /** Stops the watchdog and the masters' pools; the clients stay open (they are the caller's). */
    @Override
    public void close() {
        this.engine.close();
    }

    /** Options of a {@link Redlock}. */
    public static final class Builder extends LockFactoryBuilder<Builder> {

        private final List<UnifiedJedis> masters;
        private Duration nodeTimeout = Duration.ofMillis(50);
        private Duration retryDelay = Duration.ofMillis(200);
        private @Nullable List<String> names;

        private Builder(List<? extends UnifiedJedis> masters) {
            super(TurnstileOptions.builder());
            Objects.requireNonNull(masters, "'masters' must not be null");
            if (masters.size() < 3) {
                throw new IllegalArgumentException(
                        "Redlock needs at least 3 independent masters (5 is usual) but got " + masters.size());
            }
            this.masters = List.copyOf(masters);
        }

        /**
         * How long one master may take to answer each call (acquire, renewal, release; a new
         * connection's TLS handshake included) before it counts as a refusal or as no answer; 50 ms
         * by default. Keep it small beside the lease: every millisecond spent waiting is taken from
         * the validity.
         */
        public Builder nodeTimeout(Duration nodeTimeout) {
            this.nodeTimeout = Arguments.requirePositive(nodeTimeout, "nodeTimeout");
            return this;
        }

        /**
         * Formerly how many rounds an acquire tried within its wait; now ignored: an acquire tries
         * rounds until its wait has passed, pausing up to the {@link #retryDelay(Duration)} between
         * them.
         *
         * @deprecated the wait alone bounds an acquire; remove the call
         * @throws IllegalArgumentException if {@code attempts} is below 1
         */
        @Deprecated(since = "0.2.0")
        public Builder attempts(int attempts) {
            if (attempts < 1) {
                throw new IllegalArgumentException("'attempts' must be at least 1 but was " + attempts);
            }
            return this;
        }

        /**
         * The upper bound of the random pause between an acquire's rounds; 200 ms by default. It
         * paces the rounds and never ends an acquire before its wait has passed.
         */
        public Builder retryDelay(Duration retryDelay) {
            this.retryDelay = Arguments.requirePositive(retryDelay, "retryDelay");
            return this;
        }

        /**
         * How error messages name the masters, in the same order (for example {@code
         * "redis-a:6379"}); by default their positions. Never put a password in a name.
         *
         * @throws IllegalArgumentException if the count differs from the masters'
         */
        public Builder masterNames(List<String> names) {
            if (names.size() != this.masters.size()) {
                throw new IllegalArgumentException("'names' must name each of the " + this.masters.size()
                        + " masters but has " + names.size() + " entries");
            }
            this.names = List.copyOf(names);
            return this;
        }

        /**
         * Builds it. It makes no Redis call on the calling thread; the eviction check ({@link
         * Redlock#eviction()}) runs on a background thread and never fails.
         */
        public Redlock build() {
            return new Redlock(this, options().build());
        }
    }
}
