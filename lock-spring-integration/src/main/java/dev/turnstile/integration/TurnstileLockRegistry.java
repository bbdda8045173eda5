package dev.turnstile.integration;

import dev.turnstile.redis.LockFactory;
import java.time.Duration;
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

    private final LockFactory locks;
    private final @Nullable Duration leaseTime;
    private final ConcurrentHashMap<String, TurnstileLock> obtained = new ConcurrentHashMap<>();

    /**
     * A registry of watchdog-renewed locks from {@code locks}: a {@code Turnstile} (one Redis
     * deployment) or a {@code Redlock} (a majority of independent masters).
     */
    public TurnstileLockRegistry(LockFactory locks) {
        this(locks, null);
    }

    /**
     * A registry of locks from {@code locks}.
     *
     * @param leaseTime a fixed lease (a lock held longer is lost and reported); null for the default
     *     lease, renewed by the watchdog while the lock is held
     * @throws IllegalArgumentException if {@code leaseTime} is not positive
     */
    public TurnstileLockRegistry(LockFactory locks, @Nullable Duration leaseTime) {
        if (leaseTime != null && (leaseTime.isNegative() || leaseTime.isZero())) {
            throw new IllegalArgumentException(
                    "'leaseTime' of a TurnstileLockRegistry must be positive but was " + leaseTime);
        }
        this.locks = locks;
        this.leaseTime = leaseTime;
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
        return this.obtained.compute(name, (key, existing) -> {
            TurnstileLock lock =
                    existing != null ? existing : new TurnstileLock(key, this.locks.lock(key), this.leaseTime);
            lock.touch();
            return lock;
        });
    }

    /**
     * Forgets the locks not held in this process and not obtained, acquired or released for {@code
     * age} ms. A lock that {@link #obtain(Object)} returns while this runs stays the lock of its
     * name: each name is checked and removed atomically with {@code obtain}, so a lock is never
     * forgotten on the strength of a use older than the one that just returned it.
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.nanoTime();
        long ageNanos = TimeUnit.MILLISECONDS.toNanos(age);
        for (String name : this.obtained.keySet()) {
            this.obtained.computeIfPresent(name, (key, lock) -> isUnused(lock, now, ageNanos) ? null : lock);
        }
    }

    private static boolean isUnused(TurnstileLock lock, long now, long ageNanos) {
        return !lock.isLockedInThisProcess() && now - lock.lastUsedNanos() > ageNanos;
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
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("'ttl' to renew lock '" + lockKey + "' must be positive but was " + ttl);
        }
        heldLock(lockKey).renew(ttl);
    }

    private TurnstileLock heldLock(Object lockKey) {
        TurnstileLock lock = lockKey instanceof String name ? this.obtained.get(name) : null;
        if (lock == null || !lock.holdsLocally()) {
            throw new IllegalStateException(
                    "Cannot renew lock '" + lockKey + "': it is not held by the current thread");
        }
        return lock;
    }

    @Override
    public String toString() {
        return "TurnstileLockRegistry[" + this.obtained.size() + " locks]";
    }
}
