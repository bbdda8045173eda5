package dev.turnstile.redis.internal;

import dev.turnstile.redis.LeaseListener;
import dev.turnstile.redis.NamedLock;
import dev.turnstile.redis.TurnstileDiagnostics.HeldLock;
import dev.turnstile.redis.TurnstileDiagnostics.SemaphoreState;
import dev.turnstile.redis.inspect.LockInspector;
import dev.turnstile.redis.semaphore.RedisSemaphore;
import java.util.Collection;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * What {@code Turnstile} runs on one Redis deployment: its locks, semaphores and what its
 * diagnostics read. See {@code Turnstile} for the contract. Thread-safe.
 */
public final class TurnstileEngine implements AutoCloseable {

    private final TurnstileRuntime runtime;
    private final Locks locks;

    /** The engine over {@code redis}; no Redis call is made until the first acquire. */
    public TurnstileEngine(
            UnifiedJedis redis, TurnstileSettings settings, int watchdogThreads, List<LeaseListener> listeners) {
        this.runtime = new TurnstileRuntime(redis, settings, watchdogThreads, listeners);
        this.locks = new Locks(this.runtime);
    }

    /**
     * Returns a lock on {@code names} (duplicates ignored).
     *
     * @throws IllegalArgumentException if there is no name, or one is null or blank
     */
    public NamedLock lock(Collection<String> names) {
        return this.locks.lock(names);
    }

    /**
     * Returns the semaphore {@code name} with at most {@code limit} permits.
     *
     * @throws IllegalArgumentException if {@code name} is null or blank or {@code limit} is below 1
     */
    public RedisSemaphore semaphore(String name, int limit) {
        return CountingSemaphore.of(this.runtime, name, limit);
    }

    /** Returns whether the watchdog still renews and watches leases. */
    public boolean watchdogRunning() {
        return this.runtime.watchdog().isRunning();
    }

    /** Pings Redis (translating failures into Turnstile's exceptions). */
    public String ping() {
        return this.runtime.scripts().call("ping Redis", redis -> redis.ping());
    }

    /** Returns {@code {cached, used}}: how many of the scripts run so far the server has cached. */
    public int[] scriptsLoaded() {
        return this.runtime.scripts().scriptsLoaded();
    }

    /** Returns the prefix of every key. */
    public String keyPrefix() {
        return this.runtime.keys().prefix();
    }

    /** Returns the locks held under the prefix now (SCAN). */
    public List<HeldLock> heldLocks() {
        return new LockInspector(this.runtime.scripts().redis()).heldLocks(keyPrefix());
    }

    /** Returns the semaphores with live permits under the prefix now (SCAN). */
    public List<SemaphoreState> semaphores() {
        return new LockInspector(this.runtime.scripts().redis()).semaphores(keyPrefix());
    }

    /** Returns whether release signals use sharded pub/sub. */
    public boolean shardedSignals() {
        return this.runtime.signalMode().sharded();
    }

    /** Returns how many lock names threads of this process hold or queue for now. */
    public int localLockQueues() {
        return this.locks.localQueues();
    }

    /** Returns about how many lease renewals and deadline checks are scheduled now. */
    public int scheduledTimers() {
        return this.runtime.watchdog().scheduledTasks();
    }

    /** Stops renewing and closes the signal connection; the Jedis client stays open. */
    @Override
    public void close() {
        this.runtime.close();
    }
}
