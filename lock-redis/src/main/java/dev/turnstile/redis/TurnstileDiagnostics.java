package dev.turnstile.redis;

import dev.turnstile.redis.internal.TurnstileEngine;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What an operator or a health check may ask of a {@link Turnstile}: whether Redis answers and the
 * watchdog runs, and what is held in Redis under its prefix. Obtain it from {@link
 * Turnstile#diagnostics()}. Every call reads Redis (the listings scan, so keep them off hot paths).
 */
public final class TurnstileDiagnostics {

    private final TurnstileEngine engine;

    TurnstileDiagnostics(TurnstileEngine engine) {
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

    /** Returns about how many lease renewals and deadline checks are scheduled now. */
    public int scheduledTimers() {
        return this.engine.scheduledTimers();
    }
}
