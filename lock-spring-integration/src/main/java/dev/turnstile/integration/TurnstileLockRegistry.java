package dev.turnstile.integration;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.redis.support.Arguments;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * Spring Integration's {@code LockRegistry} on Turnstile: {@link #obtain(Object)} returns a {@link
 * TurnstileLock}, a {@link java.util.concurrent.locks.Lock} backed by a Redis lock of the same name
 * (watchdog-renewed unless a fixed lease is given, fenced, lost leases reported). Anything built on
 * a {@code LockRegistry} works on it unchanged: {@code LockRegistryLeaderInitiator} for leader
 * election, aggregators, {@code executeLocked}.
 *
 * <pre>{@code
 * @Bean
 * LockRegistryLeaderInitiator leader(TurnstileLockRegistry turnstileLockRegistry) {
 *     return new LockRegistryLeaderInitiator(turnstileLockRegistry);
 * }
 * }</pre>
 *
 * <p>The lock names are the registry keys as given ({@code obtain("orders")} locks the same name as
 * {@code @DistributedLock(key = "orders")}). Keys must be strings. Thread-safe.
 */
@SuppressWarnings("rawtypes") // raw on Spring Integration 6.5, where these interfaces are not generic
public final class TurnstileLockRegistry implements ExpirableLockRegistry, RenewableLockRegistry {

    private final LockSource source;
    private final @Nullable Duration leaseTime;
    private final ConcurrentHashMap<String, TurnstileLock> locks = new ConcurrentHashMap<>();

    private TurnstileLockRegistry(LockSource source, @Nullable Duration leaseTime) {
        this.source = source;
        this.leaseTime = leaseTime == null ? null : Arguments.requirePositive(leaseTime, "leaseTime");
    }

    /** A registry of locks in the Redis deployment {@code turnstile} talks to, watchdog-renewed. */
    public TurnstileLockRegistry(Turnstile turnstile) {
        this(turnstile, null);
    }

    /**
     * A registry of locks in the Redis deployment {@code turnstile} talks to.
     *
     * @param leaseTime a fixed lease (a lock held longer is lost and reported); null for the default
     *     lease, renewed by the watchdog while the lock is held
     */
    public TurnstileLockRegistry(Turnstile turnstile, @Nullable Duration leaseTime) {
        this((name, wait, lease) -> turnstile.lock(name).tryAcquire(wait, lease), leaseTime);
    }

    /** A registry of Redlock locks over {@code redlock}'s masters, watchdog-renewed on a majority. */
    public TurnstileLockRegistry(Redlock redlock) {
        this((name, wait, lease) -> redlock.tryAcquire(List.of(name), wait, lease), null);
    }

    /**
     * Returns the lock of {@code lockKey}; the same instance for the same key until it is expired
     * from the registry (never while held).
     *
     * @throws IllegalArgumentException if the key is not a non-blank string
     */
    @Override
    public TurnstileLock obtain(Object lockKey) {
        if (!(lockKey instanceof String name) || name.isBlank()) {
            throw new IllegalArgumentException("TurnstileLockRegistry keys are lock names: a non-blank String, but got "
                    + (lockKey == null ? "null" : lockKey.getClass().getName() + " '" + lockKey + "'"));
        }
        return this.locks.compute(name, (key, existing) -> {
            TurnstileLock lock = existing != null ? existing : new TurnstileLock(key, this.source, this.leaseTime);
            lock.touch();
            return lock;
        });
    }

    /** Forgets the locks not held in this process and not obtained or used for {@code age} ms. */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.nanoTime();
        long ageNanos = TimeUnit.MILLISECONDS.toNanos(age);
        this.locks.values().removeIf(lock -> !lock.isLockedInThisProcess() && now - lock.lastUsedNanos() > ageNanos);
    }

    /**
     * Extends the current thread's lease of {@code lockKey} by the registry's lease time (the default
     * lease when none was given). Watchdog-renewed leases need no manual renewal; this is for fixed
     * leases that must outlive their work.
     *
     * @throws IllegalStateException if the current thread does not hold the lock
     * @throws dev.turnstile.redis.LockLostException if its lease was lost
     */
    @Override
    public void renewLock(Object lockKey) {
        heldLock(lockKey).renew(null);
    }

    /**
     * Sets the time to live of the current thread's lease of {@code lockKey} to {@code ttl} from now.
     *
     * @throws IllegalStateException if the current thread does not hold the lock
     * @throws dev.turnstile.redis.LockLostException if its lease was lost
     */
    public void renewLock(Object lockKey, Duration ttl) {
        heldLock(lockKey).renew(Arguments.requirePositive(ttl, "ttl"));
    }

    private TurnstileLock heldLock(Object lockKey) {
        TurnstileLock lock = lockKey instanceof String name ? this.locks.get(name) : null;
        if (lock == null || !lock.isHeldByCurrentThread()) {
            throw new IllegalStateException(
                    "Cannot renew lock '" + lockKey + "': it is not held by the current thread");
        }
        return lock;
    }

    @Override
    public String toString() {
        return "TurnstileLockRegistry[" + this.locks.size() + " locks]";
    }

    /** Where a registry's locks come from: one deployment or Redlock. */
    @FunctionalInterface
    interface LockSource {

        Optional<Lease> tryAcquire(String name, Duration wait, @Nullable Duration leaseTime);
    }
}
