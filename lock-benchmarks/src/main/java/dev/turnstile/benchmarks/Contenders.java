package dev.turnstile.benchmarks;

import dev.turnstile.benchmarks.Scenario.Contender;
import dev.turnstile.redis.Lease;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.semaphore.RedisSemaphore;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.springframework.integration.redis.util.RedisLockRegistry;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

/**
 * Each library's lock or semaphore behind one interface, used the same way: wait up to 30 s, a
 * fixed 30 s lease (no renewal) unless a row says "watchdog", release right after acquiring.
 */
final class Contenders {

    static final long WAIT_SECONDS = 30;
    static final long LEASE_SECONDS = 30;
    static final Duration WAIT = Duration.ofSeconds(WAIT_SECONDS);
    private static final Duration LEASE = Duration.ofSeconds(LEASE_SECONDS);
    private static final String RELEASE =
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
    /** The least a grant with a server-issued fencing token can do: SET NX PX and INCR in one script. */
    private static final String FENCED_ACQUIRE = "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])"
            + " then return redis.call('INCR', KEYS[2]) end return 0";

    private Contenders() {}

    /**
     * The floor: {@code SET key token NX PX}, retried at once while busy (no waiting strategy), and
     * a plain {@code DEL} or the owner-checked compare-and-delete script.
     */
    static Contender raw(UnifiedJedis redis, String key, boolean ownerChecked) {
        String token = UUID.randomUUID().toString();
        String sha = redis.scriptLoad(RELEASE);
        SetParams params = SetParams.setParams().nx().px(LEASE.toMillis());
        return new Contender() {
            @Override
            public Object acquire() {
                while (!"OK".equals(redis.set(key, token, params))) {
                    Thread.onSpinWait();
                }
                return token;
            }

            @Override
            public void release(Object handle) {
                if (ownerChecked) {
                    redis.evalsha(sha, List.of(key), List.of(token));
                } else {
                    redis.del(key);
                }
            }
        };
    }

    /**
     * The floor for a lock that hands out a fencing token: {@code SET NX PX} and {@code INCR} of a
     * counter in one Lua script (atomic, so the token belongs to this grant), retried at once while
     * busy, and the owner-checked release. Its counter never expires and ignores the server clock,
     * so it is cheaper than any token that survives a failover or an idle name (Turnstile's).
     */
    static Contender rawFenced(UnifiedJedis redis, String key) {
        String token = UUID.randomUUID().toString();
        String acquire = redis.scriptLoad(FENCED_ACQUIRE);
        String release = redis.scriptLoad(RELEASE);
        List<String> keys = List.of(key, key + ":fence");
        List<String> args = List.of(token, Long.toString(LEASE.toMillis()));
        return new Contender() {
            @Override
            public Object acquire() {
                Object fencingToken;
                while ((fencingToken = redis.evalsha(acquire, keys, args)).equals(0L)) {
                    Thread.onSpinWait();
                }
                return fencingToken;
            }

            @Override
            public void release(Object handle) {
                redis.evalsha(release, List.of(key), List.of(token));
            }
        };
    }

    /** Turnstile's lock; {@code lease == null} puts it under the watchdog. */
    static Contender turnstile(Turnstile turnstile, String key, @Nullable Duration lease) {
        return new Contender() {
            @Override
            public Object acquire() {
                return turnstile.lock(key).tryAcquire(WAIT, lease).orElse(null);
            }

            @Override
            public void release(Object handle) {
                ((Lease) handle).close();
            }
        };
    }

    /** Turnstile's semaphore: waits up to {@code wait}, a fixed 30 s lease. */
    static Contender turnstile(RedisSemaphore semaphore, Duration wait) {
        return new Contender() {
            @Override
            public @Nullable Object acquire() {
                return semaphore.tryAcquire(wait, LEASE).orElse(null);
            }

            @Override
            public void release(Object handle) {
                ((Lease) handle).close();
            }
        };
    }

    static Contender redisson(RedissonClient redisson, String key) {
        RLock lock = redisson.getLock(key);
        return new Contender() {
            @Override
            public @Nullable Object acquire() throws InterruptedException {
                return lock.tryLock(WAIT_SECONDS, LEASE_SECONDS, TimeUnit.SECONDS) ? lock : null;
            }

            @Override
            public void release(Object handle) {
                lock.unlock();
            }
        };
    }

    static Contender redissonFenced(RedissonClient redisson, String key) {
        RFencedLock lock = redisson.getFencedLock(key);
        return new Contender() {
            @Override
            public @Nullable Object acquire() {
                return lock.tryLockAndGetToken(WAIT_SECONDS, LEASE_SECONDS, TimeUnit.SECONDS);
            }

            @Override
            public void release(Object handle) {
                lock.unlock();
            }
        };
    }

    /** Redisson's semaphore, leased like Turnstile's: waits up to {@code wait}, a fixed 30 s lease. */
    static Contender redisson(RPermitExpirableSemaphore semaphore, Duration wait) {
        return new Contender() {
            @Override
            public @Nullable Object acquire() throws InterruptedException {
                return semaphore.tryAcquire(wait.toSeconds(), LEASE_SECONDS, TimeUnit.SECONDS);
            }

            @Override
            public void release(Object handle) {
                semaphore.release((String) handle);
            }
        };
    }

    static Contender springIntegration(RedisLockRegistry registry, String key) {
        return new Contender() {
            @Override
            public @Nullable Object acquire() throws InterruptedException {
                Lock lock = registry.obtain(key);
                return lock.tryLock(WAIT_SECONDS, TimeUnit.SECONDS) ? lock : null;
            }

            @Override
            public void release(Object handle) {
                ((Lock) handle).unlock();
            }
        };
    }

    /** Takes a {@code java.util.concurrent} primitive within a wait; true when taken. */
    @FunctionalInterface
    interface TimedTry {

        boolean tryAcquire() throws InterruptedException;
    }

    /**
     * A {@code java.util.concurrent} primitive shared by a scenario's threads (an anchor without
     * Redis): {@code tryAcquire} within the wait, then {@code release}.
     */
    static Contender inProcess(TimedTry tryAcquire, Runnable release) {
        return new Contender() {
            @Override
            public @Nullable Object acquire() throws InterruptedException {
                return tryAcquire.tryAcquire() ? Boolean.TRUE : null;
            }

            @Override
            public void release(Object handle) {
                release.run();
            }
        };
    }

    /**
     * The physical anchor of a hot key in one process: a fair {@link ReentrantLock}, the same object
     * for every thread of a scenario, so each acquisition is a FIFO hand-off between threads (a park
     * and an unpark), with no Redis at all.
     */
    static Contender fairReentrantLock(ReentrantLock lock) {
        return inProcess(
                () -> {
                    lock.lock();
                    return true;
                },
                lock::unlock);
    }

    static Contender annotated(AnnotatedService service) {
        return new Contender() {
            @Override
            public Object acquire() {
                return service.work("1");
            }

            @Override
            public void release(Object handle) {
                // the aspect released it when the method returned
            }
        };
    }
}
