package dev.turnstile.redis;

import dev.turnstile.redis.internal.Acquires;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A distributed lock on one name or on several names at once (all-or-nothing, taken in sorted
 * order so that two callers never deadlock): what {@link Turnstile#lock} and {@code Redlock.lock}
 * hand out. A cheap handle, safe to share between threads and to create per call.
 *
 * <p>{@code leaseTime == null} means the default lease, renewed by the watchdog until the lease is
 * released; a given lease time is not renewed.
 */
public interface NamedLock {

    /** Returns the names this lock covers, sorted. */
    List<String> names();

    /**
     * Tries once, without waiting, with the default, watchdog-renewed lease.
     *
     * @return the lease, or empty if another owner holds the lock
     * @throws RedisUnavailableException if Redis cannot be reached
     */
    default Optional<Lease> tryAcquire() {
        return tryAcquire(Duration.ZERO, null);
    }

    /**
     * Acquires the lock, waiting up to {@code wait}.
     *
     * @param wait how long to wait for the lock; zero tries once
     * @param leaseTime how long the lease lasts without renewal; null for the default lease,
     *     renewed by the watchdog until released
     * @return the lease, or empty if the wait passed
     * @throws IllegalArgumentException if {@code wait} is negative or {@code leaseTime} is not
     *     positive
     * @throws LockAcquisitionException if the thread is interrupted while waiting (its interrupt
     *     flag stays set); a grant that raced the interrupt is released
     * @throws RedisUnavailableException if Redis cannot be reached; a grant that may have been
     *     made by a call that timed out is released
     */
    Optional<Lease> tryAcquire(Duration wait, @Nullable Duration leaseTime);

    /**
     * Acquires the lock like {@link #tryAcquire(Duration, Duration)}, but throws when the wait
     * passes.
     *
     * @throws LockAcquisitionException if the lock stayed held for the whole wait, naming the lock
     *     and the time waited
     */
    default Lease acquire(Duration wait, @Nullable Duration leaseTime) {
        return Acquires.orRefuse(
                () -> tryAcquire(wait, leaseTime),
                waited -> LockAcquisitionException.of(String.join(",", names()), waited));
    }

    /**
     * Returns whether any of this lock's names is taken right now: true exactly while another
     * owner's {@link #tryAcquire()} of that name would be refused. The same on every deployment: a
     * name is taken while its lock key exists (on Redlock, on a majority of the masters; a master
     * that does not answer within the node timeout holds nothing). On one Redis deployment that
     * includes the short hold-off after {@link #forceRelease()} (the lock cohort's longest age, 20
     * ms by default), during which the former holder's process may still pass the grant between
     * its threads. The answer may be stale by the time it is used.
     */
    boolean isLocked();

    /**
     * Takes this lock from whoever holds it, and wakes waiters: an operator's tool for a lock whose
     * holder is known to be gone (the holder, if alive, finds its lease lost at its next renewal or
     * its release; on one Redis deployment with {@link LeaseLostEvent.Reason#FORCE_RELEASED}, as the
     * owner token taken is kept in Redis for what was left of its lease). The fencing counter is left alone, so tokens still increase. On one Redis
     * deployment the lock becomes free after the lock cohort's longest age of the {@code Turnstile}
     * that force-releases (20 ms by default), not at once: until then the holder's process may
     * still pass the grant between its own threads, and nobody else may hold the lock beside them,
     * provided every process uses the same longest age ({@code lockCohort}'s {@code maxAge}).
     *
     * @return the names that were held
     */
    List<String> forceRelease();
}
