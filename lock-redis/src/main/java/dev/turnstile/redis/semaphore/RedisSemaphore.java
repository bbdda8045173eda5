package dev.turnstile.redis.semaphore;

import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.redis.SemaphoreFullException;
import dev.turnstile.redis.internal.Acquires;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A counting semaphore: at most {@link #limit()} permits of one name are held at once, across
 * every process. Obtain it from {@code Turnstile.semaphore(name, limit)}; it is a cheap, immutable
 * handle, safe to share between threads.
 *
 * <p>Every permit is leased: it expires unless refreshed ({@link Permit#extend}, or the watchdog
 * when no lease time is given), so a crashed holder's slot comes back after its lease. Expiry is
 * judged by the Redis server's clock inside the acquire script; no client clock is used, so clock
 * skew between clients cannot admit more than the limit or steal a slot.
 *
 * <p>Fail-fast by default: {@link #tryAcquire()} answers at once with one Redis call. A waiting
 * acquire sleeps until a permit is released (or a bounded backoff elapses). In {@link #fair()} mode
 * waiters are served in arrival order across every process and a newcomer never overtakes a
 * waiter: each waiter takes its ticket in Redis's queue when it arrives and is granted in ticket
 * order. A release hands the freed permit to the first waiter in the queue, which takes it at its
 * full lease with its next call; a waiter keeps its place by calling at least every 1.7 s, and a waiter that crashed loses its
 * place, and a permit handed to it, 5 s after its last call. To keep that order, a fair
 * semaphore does not queue waiters in the process and never passes a permit on locally: each
 * waiter is served by Redis, which costs throughput (the semaphore table in {@code
 * docs/benchmarks.md} shows how much). Otherwise whoever tries first after a release wins.
 *
 * <p>Waiting threads of one process queue in that process (unfair mode only): at most {@link #limit()} of them hold a
 * permit or contend for one in Redis, the others wait in arrival order without Redis traffic, and a
 * holder that releases while others queue may pass its permit to the first of them without a Redis
 * round trip. The permit stays leased in Redis under the same id and its server-side expiry; the
 * next holder's lease counts from the previous holder's deadline (never later than the permit lives
 * in Redis) and is renewed in Redis like any other, so no more than {@link #limit()} permits are held
 * in the deployment whatever the clocks, and a crashed process's permits expire. Every holder gets
 * its own fencing token, larger than that of every permit granted (in any process) before it asked;
 * tokens are not in the order holds begin (a thread that waited through other grants may get a
 * smaller token than a holder that began before it). A permit that vanished from Redis while it
 * passed (a failover that lost its writes, an eviction) is reported lost for every holder it passed
 * through since Redis last confirmed it, by the next call to Redis about that permit.
 * A permit's grant in Redis serves at most the lock cohort's holders in a row and only within its
 * age ({@code Turnstile.Builder.lockCohort}, 32 holders and 20 ms by default), then goes back to
 * Redis; when another process was waiting for it, this process's next thread lets that process try
 * first, for up to 20 ms (limits the code sets, not bounds a test measures: see {@code
 * docs/guarantees.md}). A try that does not wait never queues.
 *
 * <p>Every process must use the same limit for one name: the limit is checked against the
 * caller's value at each acquire, not stored.
 */
public interface RedisSemaphore {

    /** Returns a handle on the same semaphore whose waiters are served in arrival order. */
    RedisSemaphore fair();

    /** Returns the semaphore's name. */
    String name();

    /** Returns the most permits held at once. */
    int limit();

    /** Returns whether this handle serves waiters in arrival order. */
    boolean isFair();

    /**
     * Tries once, without waiting, for a permit under the watchdog: one Redis call. In fair mode a
     * caller is refused while others wait.
     *
     * @return the permit, or empty if all permits are held
     * @throws RedisUnavailableException if Redis cannot be reached
     */
    default Optional<Permit> tryAcquire() {
        return tryAcquire(Duration.ZERO, null);
    }

    /**
     * Acquires a permit, waiting up to {@code wait}.
     *
     * @param wait how long to wait; zero tries once
     * @param leaseTime how long the permit lasts without refresh; null for the default lease,
     *     refreshed by the watchdog until released
     * @return the permit, or empty if none became free in time
     * @throws IllegalArgumentException if {@code wait} is negative or {@code leaseTime} is not
     *     positive
     * @throws SemaphoreFullException if the thread is interrupted while waiting (its interrupt flag
     *     stays set); a grant that raced the interrupt is released
     * @throws RedisUnavailableException if Redis cannot be reached
     */
    Optional<Permit> tryAcquire(Duration wait, @Nullable Duration leaseTime);

    /**
     * Acquires a permit like {@link #tryAcquire(Duration, Duration)}, but throws when none is free
     * in time.
     *
     * @throws SemaphoreFullException naming the semaphore, its limit and the time waited
     */
    default Permit acquire(Duration wait, @Nullable Duration leaseTime) {
        return Acquires.orRefuse(
                () -> tryAcquire(wait, leaseTime), waited -> SemaphoreFullException.of(name(), limit(), waited));
    }

    /**
     * Returns how many permits are free now (expired permits do not count as held).
     *
     * @throws RedisUnavailableException if Redis cannot be reached
     */
    default int availablePermits() {
        return Math.max(0, limit() - holders().size());
    }

    /**
     * Returns the live permits, as Redis sees them after pruning expired ones.
     *
     * @throws RedisUnavailableException if Redis cannot be reached
     */
    List<PermitHolder> holders();
}
