package dev.turnstile.redis;

import dev.turnstile.redis.internal.DiagnosticsSource;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What an operator or a health check may ask of a {@link Turnstile}: whether Redis answers and the
 * watchdog runs, and what is held in Redis under its prefix. Obtain it from {@link
 * Turnstile#diagnostics()}. Every call reads Redis (the listings scan, so keep them off hot paths).
 */
public final class TurnstileDiagnostics {

    private final DiagnosticsSource<HeldLock, SemaphoreState, Eviction> engine;

    TurnstileDiagnostics(DiagnosticsSource<HeldLock, SemaphoreState, Eviction> engine) {
        this.engine = engine;
    }

    /**
     * A lock held in Redis.
     *
     * @param name the lock name
     * @param key the Redis key
     * @param owner the owner token
     * @param remaining time to live
     */
    public record HeldLock(String name, String key, String owner, Duration remaining) {}

    /**
     * A semaphore with live permits in Redis.
     *
     * @param name the semaphore name
     * @param key the holders ZSET
     * @param holders the permit ids, earliest expiry first
     */
    public record SemaphoreState(String name, String key, List<String> holders) {}

    /**
     * One health check.
     *
     * @param up whether Redis answered and the watchdog runs
     * @param redis Redis's answer to {@code PING}, or null when it did not answer
     * @param watchdogRunning whether leases are still renewed and watched
     * @param scriptsCached how many of the scripts this instance has run the server has cached
     * @param scriptsUsed how many scripts this instance has run
     * @param error why Redis did not answer, or null
     */
    public record Health(
            boolean up,
            @Nullable String redis,
            boolean watchdogRunning,
            int scriptsCached,
            int scriptsUsed,
            @Nullable RuntimeException error) {}

    /**
     * Whether one Redis server may evict keys, as its {@code INFO memory} says: a server with a
     * {@code maxmemory} and any {@code maxmemory-policy} but {@code noeviction} deletes keys when it
     * runs out of memory, and Turnstile's keys are no exception ({@code volatile-*} policies evict
     * keys with a TTL, and every Turnstile key has one). An evicted lock key lets another client take
     * the lock at once, while its holder learns of the loss only at its next renewal.
     *
     * @param server the server: {@code host:port}, a Redlock master's name, or {@code "Redis"} when
     *     the client does not say
     * @param risk whether it may evict keys, or whether that could not be read
     * @param policy its {@code maxmemory-policy} (e.g. {@code allkeys-lru}), or null when not read
     * @param maxmemory its {@code maxmemory} in bytes, 0 when it has none (or when not read)
     * @param reason why it could not be read, or null
     */
    public record Eviction(
            String server,
            Risk risk,
            @Nullable String policy,
            long maxmemory,
            @Nullable String reason) {

        /** What a server's memory settings mean for the keys Turnstile keeps there. */
        public enum Risk {
            /** It never evicts: its policy is {@code noeviction}, or it has no {@code maxmemory}. */
            NONE,
            /** It may evict Turnstile's keys once it reaches its {@code maxmemory}. */
            MAY_EVICT,
            /** Its settings could not be read: refused, unknown to the server, or no answer. */
            UNKNOWN
        }

        /** Returns whether this server may evict Turnstile's keys. */
        public boolean mayEvict() {
            return this.risk == Risk.MAY_EVICT;
        }

        /**
         * Returns a short description for health details and listings: {@code "noeviction"}, {@code
         * "allkeys-lru, maxmemory 2097152 bytes: may evict lock keys"}, {@code "volatile-lru, no
         * maxmemory: evicts nothing"} or {@code "not checked: ..."}.
         */
        public String summary() {
            return switch (this.risk) {
                case UNKNOWN -> "not checked: " + this.reason;
                case MAY_EVICT -> this.policy + ", maxmemory " + this.maxmemory + " bytes: may evict lock keys";
                case NONE ->
                    "noeviction".equals(this.policy) ? "noeviction" : this.policy + ", no maxmemory: evicts nothing";
            };
        }
    }

    /**
     * Reads {@code maxmemory} and {@code maxmemory-policy} from {@code INFO memory} now: of the
     * server, of the current Sentinel-managed master, or of every master of a cluster (after one
     * {@code CLUSTER SLOTS}). One command per server; a server that refused {@code INFO} is not asked
     * again. Logs a WARN the first time a server (and policy) that may evict is seen. Never throws:
     * what could not be read is reported as {@link Eviction.Risk#UNKNOWN}.
     */
    public List<Eviction> eviction() {
        return this.engine.eviction();
    }

    /** Pings Redis and checks the watchdog and the script cache now (two Redis calls); never throws. */
    public Health health() {
        boolean watchdog = this.engine.watchdogRunning();
        try {
            String pong = this.engine.ping();
            int[] scripts = this.engine.scriptsLoaded();
            return new Health(watchdog, pong, watchdog, scripts[0], scripts[1], null);
        } catch (RuntimeException e) {
            return new Health(false, null, watchdog, 0, 0, e);
        }
    }

    /** Returns the prefix every key of this instance starts with. */
    public String keyPrefix() {
        return this.engine.keyPrefix();
    }

    /** Returns the locks held in Redis under the prefix now, by any process (SCAN). */
    public List<HeldLock> heldLocks() {
        return this.engine.heldLocks();
    }

    /** Returns the semaphores with live permits in Redis under the prefix now (SCAN). */
    public List<SemaphoreState> semaphores() {
        return this.engine.semaphores();
    }

    /**
     * Returns whether release signals use sharded pub/sub ({@code SPUBLISH}): on a Redis Cluster of
     * version 7 or later, once its version could be read.
     */
    public boolean shardedSignals() {
        return this.engine.shardedSignals();
    }

    /**
     * Returns how many lock names threads of this process hold or queue for now (no Redis call): it
     * returns to zero when nobody holds or waits, whatever was locked before.
     */
    public int localLockQueues() {
        return this.engine.localLockQueues();
    }

    /**
     * Returns whether a thread queued for a lock behind another thread of this process waits awake
     * for a turn due soon before it parks: {@code awakeWaiting} as set, with {@code AUTO} resolved on
     * this process's CPUs (false under a CPU quota). With one processor nobody waits awake whatever
     * this says.
     */
    public boolean queuedThreadsWaitAwake() {
        return this.engine.queuedThreadsWaitAwake();
    }

    /**
     * Returns about how many lease renewals and deadline checks are scheduled now. A lease granted
     * in the last few milliseconds may not be counted yet: its first deadline check waits for a
     * batch (most leases end before it runs, and then cost no timer).
     */
    public int scheduledTimers() {
        return this.engine.scheduledTimers();
    }
}
