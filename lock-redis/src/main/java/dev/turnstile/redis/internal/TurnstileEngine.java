package dev.turnstile.redis.internal;

import dev.turnstile.redis.NamedLock;
import dev.turnstile.redis.TurnstileDiagnostics.Eviction;
import dev.turnstile.redis.TurnstileDiagnostics.HeldLock;
import dev.turnstile.redis.TurnstileDiagnostics.SemaphoreState;
import dev.turnstile.redis.semaphore.RedisSemaphore;
import java.util.Collection;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * What {@code Turnstile} runs on one Redis deployment: its locks, semaphores and what its
 * diagnostics read. See {@code Turnstile} for the contract. Thread-safe.
 */
public final class TurnstileEngine implements DiagnosticsSource<HeldLock, SemaphoreState, Eviction>, AutoCloseable {

    private final RedisDeployment deployment;
    private final Locks locks;
    private final PermitQueues permitQueues = new PermitQueues();
    private final EvictionCheck eviction;

    /**
     * The engine over {@code redis}. The only Redis call it starts is the eviction check, on a
     * watchdog I/O thread; the caller's thread makes none until the first acquire.
     */
    public TurnstileEngine(UnifiedJedis redis, TurnstileOptions options) {
        this.deployment = new RedisDeployment(redis, options);
        this.locks = new Locks(this.deployment);
        this.eviction = EvictionCheck.of(this.deployment.topology());
        Watchdog watchdog = this.deployment.leases().watchdog();
        this.eviction.start(watchdog::execute, watchdog::isRunning);
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
        return CountingSemaphore.of(this.deployment, this.permitQueues, name, limit);
    }

    @Override
    public boolean watchdogRunning() {
        return this.deployment.leases().watchdog().isRunning();
    }

    @Override
    public String ping() {
        return this.deployment.scripts().call("ping Redis", redis -> redis.ping());
    }

    @Override
    public int[] scriptsLoaded() {
        return this.deployment.scripts().scriptsLoaded();
    }

    @Override
    public String keyPrefix() {
        return this.deployment.keys().prefix();
    }

    @Override
    public List<HeldLock> heldLocks() {
        return new KeyspaceScan(this.deployment.scripts().redis()).heldLocks(this.deployment.keys());
    }

    @Override
    public List<SemaphoreState> semaphores() {
        return new KeyspaceScan(this.deployment.scripts().redis()).semaphores(this.deployment.keys());
    }

    @Override
    public List<Eviction> eviction() {
        return this.eviction.evictions();
    }

    @Override
    public boolean shardedSignals() {
        return this.deployment.signalMode().sharded();
    }

    @Override
    public int localLockQueues() {
        return this.locks.localQueues();
    }

    @Override
    public boolean queuedThreadsWaitAwake() {
        return this.locks.waitsAwake();
    }

    @Override
    public int scheduledTimers() {
        return this.deployment.leases().watchdog().scheduledTasks();
    }

    /** Stops renewing and closes the signal connection; the Jedis client stays open. */
    @Override
    public void close() {
        this.deployment.close();
    }
}
