package dev.turnstile.redis.support;

import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LeaseListener;
import dev.turnstile.redis.LeaseLostEvent;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * What every lock and semaphore of one {@code Turnstile} shares: the Redis client, the key layout,
 * the release signals, the watchdog, the defaults and the global lease listeners. Thread-safe.
 */
public final class TurnstileRuntime implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TurnstileRuntime.class);

    private final UnifiedJedis redis;
    private final RedisKeys keys;
    private final ReleaseSignals signals;
    private final Watchdog watchdog;
    private final Duration defaultLease;
    private final Duration fenceRetention;
    private final List<LeaseListener> listeners;
    private final String ownerPrefix = UUID.randomUUID().toString();
    private final AtomicLong ownerSequence = new AtomicLong();
    private volatile boolean closed;
    private volatile int minReplicas;
    private volatile Duration replicaTimeout = Duration.ofMillis(100);
    private volatile int cohortHolders = 32;
    private volatile Duration cohortMaxAge = Duration.ofMillis(20);
    private final java.util.Set<String> scriptsUsed = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Creates the runtime; see {@code Turnstile.Builder} for what each argument means. */
    public TurnstileRuntime(
            UnifiedJedis redis,
            String prefix,
            Duration defaultLease,
            Duration fenceRetention,
            int watchdogThreads,
            List<LeaseListener> listeners) {
        this.redis = redis;
        this.keys = new RedisKeys(prefix);
        this.watchdog = new Watchdog(watchdogThreads);
        this.signals = new ReleaseSignals(redis, prefix, this.watchdog, this::shardedSignals);
        this.defaultLease = defaultLease;
        this.fenceRetention = fenceRetention;
        this.listeners = List.copyOf(listeners);
    }

    /** How long after a failed version probe the next one may run. */
    private static final long PROBE_RETRY_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);

    private volatile @org.jspecify.annotations.Nullable Boolean sharded;
    private volatile long nextProbeNanos = System.nanoTime();

    /**
     * Whether release signals use sharded pub/sub ({@code SPUBLISH}/{@code SSUBSCRIBE}): on a
     * Redis Cluster of version 7 or later. Decided once the cluster's version could be read; while
     * no node answers, plain pub/sub is used and the version is probed again (at most once a
     * second), so one unlucky start never leaves a process publishing where the others do not listen.
     */
    public boolean shardedSignals() {
        Boolean decided = this.sharded;
        if (decided != null) {
            return decided;
        }
        if (!(this.redis instanceof redis.clients.jedis.JedisCluster cluster)) {
            this.sharded = false;
            return false;
        }
        long now = System.nanoTime();
        if (now - this.nextProbeNanos < 0) {
            return false;
        }
        java.util.OptionalInt version = majorVersion(cluster);
        if (version.isEmpty()) {
            this.nextProbeNanos = now + PROBE_RETRY_NANOS;
            return false;
        }
        decided = version.getAsInt() >= 7;
        this.sharded = decided;
        return decided;
    }

    /** Returns the command a release script publishes with: {@code SPUBLISH} or {@code PUBLISH}. */
    public String publishCommand() {
        return shardedSignals() ? "SPUBLISH" : "PUBLISH";
    }

    /** The cluster's major version, from the first node that answers; empty if none does. */
    private static java.util.OptionalInt majorVersion(redis.clients.jedis.JedisCluster cluster) {
        for (redis.clients.jedis.ConnectionPool pool : cluster.getClusterNodes().values()) {
            try (redis.clients.jedis.Connection connection = pool.getResource()) {
                String info = new redis.clients.jedis.Jedis(connection).info("server");
                return info.lines()
                        .filter(line -> line.startsWith("redis_version:"))
                        .mapToInt(line -> Integer.parseInt(
                                line.substring("redis_version:".length()).split("\\.")[0]))
                        .findFirst();
            } catch (RuntimeException e) {
                log.debug("Could not read a cluster node's version: {}", e.getMessage());
            }
        }
        return java.util.OptionalInt.empty();
    }

    /** Returns the Redis client. */
    public UnifiedJedis redis() {
        return this.redis;
    }

    /** Returns the key layout. */
    public RedisKeys keys() {
        return this.keys;
    }

    /** Returns the shared release signals. */
    public ReleaseSignals signals() {
        return this.signals;
    }

    /** Returns the watchdog. */
    public Watchdog watchdog() {
        return this.watchdog;
    }

    /** Returns the lease used when none is given; it is renewed by the watchdog. */
    public Duration defaultLease() {
        return this.defaultLease;
    }

    /** Returns how long an unused fencing counter is kept. */
    public Duration fenceRetention() {
        return this.fenceRetention;
    }

    /** Returns a token unique to one grant: this instance's random id and a sequence number. */
    public String newOwnerToken() {
        return this.ownerPrefix + ":" + this.ownerSequence.incrementAndGet();
    }

    /**
     * Runs {@code script}, translating Jedis exceptions into Turnstile's.
     *
     * @param operation what the call does, for messages, e.g. {@code "acquire lock 'item:42'"}
     */
    public Object eval(LuaScript script, String operation, List<String> keys, List<String> args) {
        for (int attempt = 1; ; attempt++) {
            try {
                Object result = script.run(this.redis, keys, args);
                this.scriptsUsed.add(script.sha());
                return result;
            } catch (JedisException e) {
                // TRYAGAIN: a cluster slot is moving and this call's keys are split for a moment.
                if (attempt < 20 && String.valueOf(e.getMessage()).startsWith("TRYAGAIN")) {
                    java.util.concurrent.locks.LockSupport.parkNanos(
                            java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(5));
                    continue;
                }
                throw RedisErrors.translate(e, operation);
            }
        }
    }

    /**
     * Makes every grant wait until {@code replicas} replicas acknowledged it ({@code WAIT}), at
     * most {@code timeout}; 0 turns it off.
     */
    public void requireReplicas(int replicas, Duration timeout) {
        this.minReplicas = replicas;
        this.replicaTimeout = timeout;
    }

    /**
     * Sets the lock cohort's bounds: a grant in Redis is passed to at most {@code holders} threads
     * of this process in a row, within {@code maxAge} of the grant; 1 turns local hand-off off.
     */
    public void cohort(int holders, Duration maxAge) {
        this.cohortHolders = holders;
        this.cohortMaxAge = maxAge;
    }

    /** Returns the most holders one lock grant in Redis serves in this process. */
    public int cohortHolders() {
        return this.cohortHolders;
    }

    /** Returns how long after its grant in Redis a lock may still be passed on locally. */
    public Duration cohortMaxAge() {
        return this.cohortMaxAge;
    }

    /** Returns how many replicas must acknowledge a grant (0: none). */
    public int minReplicas() {
        return this.minReplicas;
    }

    /**
     * A script's reply and how many replicas acknowledged the writes before it.
     *
     * @param reply the script's reply
     * @param replicas replicas that acknowledged ({@code WAIT}'s answer)
     */
    public record Replicated(Object reply, long replicas) {}

    /**
     * Runs {@code script}, then {@code WAIT} for {@link #minReplicas()} replicas on the same
     * connection (a pipeline), so the count is about this write. Translates Jedis exceptions.
     */
    public Replicated evalReplicated(LuaScript script, String operation, List<String> keys, List<String> args) {
        try {
            return waitOnSameConnection(script, keys, args, true);
        } catch (redis.clients.jedis.exceptions.JedisNoScriptException notCached) {
            try {
                return waitOnSameConnection(script, keys, args, false);
            } catch (JedisException e) {
                throw RedisErrors.translate(e, operation);
            }
        } catch (JedisException e) {
            throw RedisErrors.translate(e, operation);
        }
    }

    private Replicated waitOnSameConnection(LuaScript script, List<String> keys, List<String> args, boolean bySha) {
        try (redis.clients.jedis.AbstractPipeline pipeline = this.redis.pipelined()) {
            redis.clients.jedis.Response<Object> reply =
                    bySha ? pipeline.evalsha(script.sha(), keys, args) : pipeline.eval(script.source(), keys, args);
            redis.clients.jedis.Response<Long> acknowledged =
                    pipeline.waitReplicas(keys.get(0), this.minReplicas, this.replicaTimeout.toMillis());
            pipeline.sync();
            Object result = reply.get();
            this.scriptsUsed.add(script.sha());
            return new Replicated(result, acknowledged.get());
        }
    }

    /** Runs a plain Jedis command, translating Jedis exceptions into Turnstile's. */
    public <T> T call(String operation, Function<UnifiedJedis, T> command) {
        try {
            return command.apply(this.redis);
        } catch (JedisException e) {
            throw RedisErrors.translate(e, operation);
        }
    }

    /**
     * Returns how many of the scripts this instance has run are cached on the server ({@code SCRIPT
     * EXISTS}), and how many it has run; for health checks. A server restart empties the cache;
     * scripts reload by themselves on next use.
     *
     * @return {@code {loaded, used}}
     */
    public int[] scriptsLoaded() {
        List<String> used = List.copyOf(this.scriptsUsed);
        if (used.isEmpty()) {
            return new int[] {0, 0};
        }
        List<Boolean> exists = call("check scripts", redis -> redis.scriptExists(used));
        return new int[] {(int) exists.stream().filter(Boolean::booleanValue).count(), used.size()};
    }

    /** Tells every global listener that a lease was lost; a failing listener is logged, not rethrown. */
    public void publishLoss(LeaseLostEvent event) {
        for (LeaseListener listener : this.listeners) {
            notifySafely(listener, event);
        }
    }

    /** Tells every global listener that the watchdog renewed a lease. */
    public void publishRenewal(LeaseKind kind, String name) {
        for (LeaseListener listener : this.listeners) {
            try {
                listener.leaseRenewed(kind, name);
            } catch (RuntimeException e) {
                log.error("Lease listener {} failed on a renewal of {} '{}'", listener, kind, name, e);
            }
        }
    }

    /** Calls {@code listener}, logging instead of propagating what it throws. */
    public static void notifySafely(LeaseListener listener, LeaseLostEvent event) {
        try {
            listener.leaseLost(event);
        } catch (RuntimeException e) {
            log.error("Lease listener {} failed on {}", listener, event, e);
        }
    }

    /**
     * Fails if this runtime was closed: a lease granted now could be neither renewed nor watched.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    public void requireOpen() {
        if (this.closed) {
            throw new IllegalStateException("This Turnstile is closed; build a new one to acquire locks or permits");
        }
    }

    @Override
    public void close() {
        this.closed = true;
        this.signals.close();
        this.watchdog.close();
    }
}
