package dev.turnstile.integration;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.LockLostException;
import dev.turnstile.redis.NamedLock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Lock} over one Redis lock name, from a {@link TurnstileLockRegistry}. Reentrant per
 * thread, like {@link ReentrantLock}: the first acquisition by a thread takes the Redis lock (after
 * the threads of this process queue locally), and its lease belongs to the whole hold; nested
 * acquisitions only count, without calling Redis or waiting, and the last {@link #unlock()} releases
 * the lease. Only the holding thread may unlock.
 *
 * <p>A hold whose lease was lost (it expired, its renewals were cut off, an operator force-released
 * it) no longer excludes anyone: another owner may have the lock. The holder is told at its next
 * step, as far as this process knows without calling Redis: a nested acquisition throws {@link
 * LockLostException} instead of counting, and every {@link #unlock()} of that hold throws {@link
 * LockLostException} after giving up its count. Once the last count is given up, the lock can be
 * acquired anew, with a new lease and fencing token. That is how {@code
 * LockRegistryLeaderInitiator} notices a lost leadership: its heartbeat's nested {@code tryLock}
 * throws, and it revokes the leadership and unlocks.
 *
 * <p>Conditions are not supported.
 */
public final class TurnstileLock implements Lock {

    /** How long one wait for the Redis lock lasts inside an unbounded {@link #lock()}. */
    private static final Duration WAIT_CHUNK = Duration.ofHours(1);

    private final String name;
    private final NamedLock redisLock;
    private final @Nullable Duration leaseTime;
    private final ReentrantLock local = new ReentrantLock();
    /** The current hold's lease: taken by its first acquisition, released by its last unlock. */
    private volatile @Nullable Lease lease;

    private volatile long lastUsedNanos = System.nanoTime();

    TurnstileLock(String name, NamedLock redisLock, @Nullable Duration leaseTime) {
        this.name = name;
        this.redisLock = redisLock;
        this.leaseTime = leaseTime;
    }

    /** Returns the lock's name in Redis. */
    public String name() {
        return this.name;
    }

    /**
     * Waits, uninterruptibly, until this thread holds the lock. An interrupt while waiting is kept:
     * the flag is set again once the lock is held.
     *
     * @throws LockLostException if this thread already holds the lock and its lease was lost: the
     *     hold is left as it was, to be unlocked
     * @throws dev.turnstile.redis.RedisUnavailableException if Redis cannot be reached; the lock is
     *     then not held
     */
    @Override
    public void lock() {
        touch();
        this.local.lock();
        if (isNested()) {
            return;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (acquireLease(WAIT_CHUNK)) {
                        return;
                    }
                } catch (LockAcquisitionException e) {
                    if (!Thread.interrupted()) {
                        throw e;
                    }
                    interrupted = true;
                }
            }
        } catch (RuntimeException e) {
            this.local.unlock();
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits until this thread holds the lock or is interrupted.
     *
     * @throws LockLostException if this thread already holds the lock and its lease was lost: the
     *     hold is left as it was, to be unlocked
     */
    @Override
    public void lockInterruptibly() throws InterruptedException {
        touch();
        this.local.lockInterruptibly();
        if (isNested()) {
            return;
        }
        try {
            while (!acquireLease(WAIT_CHUNK)) {
                // an hour passed: wait on
            }
        } catch (LockAcquisitionException e) {
            this.local.unlock();
            throw interruptedBy(e);
        } catch (RuntimeException e) {
            this.local.unlock();
            throw e;
        }
    }

    /**
     * Takes the lock if it is free now, without waiting (an interrupted thread gets false).
     *
     * @throws LockLostException if this thread already holds the lock and its lease was lost: the
     *     hold is left as it was, to be unlocked
     */
    @Override
    public boolean tryLock() {
        touch();
        if (!this.local.tryLock()) {
            return false;
        }
        if (isNested()) {
            return true;
        }
        try {
            return acquireLeaseOrLeave(Duration.ZERO);
        } catch (LockAcquisitionException e) {
            return false; // interrupted: the flag stays set
        }
    }

    /**
     * Takes the lock if it becomes free within {@code time}.
     *
     * @throws LockLostException if this thread already holds the lock and its lease was lost: the
     *     hold is left as it was, to be unlocked
     */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        long wait = unit.toNanos(time); // saturates at Long.MAX_VALUE
        long start = System.nanoTime();
        touch();
        if (!this.local.tryLock(time, unit)) {
            return false;
        }
        if (isNested()) {
            return true;
        }
        boolean held = false;
        try {
            while (true) {
                long left = wait - (System.nanoTime() - start);
                Duration chunk = Duration.ofNanos(Math.max(0, Math.min(left, WAIT_CHUNK.toNanos())));
                if (acquireLease(chunk)) {
                    held = true;
                    return true;
                }
                if (left <= WAIT_CHUNK.toNanos()) {
                    return false;
                }
            }
        } catch (LockAcquisitionException e) {
            throw interruptedBy(e);
        } finally {
            if (!held) {
                this.local.unlock();
            }
        }
    }

    /**
     * Releases one hold of the current thread; the last one releases the Redis lock.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     * @throws LockLostException if the lease had been lost before this release: the work it guarded
     *     may have overlapped another holder's (the hold is released locally all the same; each
     *     unlock of a hold whose lease was lost throws, the last one included)
     */
    @Override
    public void unlock() {
        if (!this.local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("Lock '" + this.name + "' is not held by thread "
                    + Thread.currentThread().getName());
        }
        Lease held = this.lease;
        boolean lost;
        try {
            if (this.local.getHoldCount() == 1) {
                this.lease = null;
                lost = held == null || !held.release();
            } else {
                lost = held == null || !held.isHeld();
            }
        } finally {
            touch();
            this.local.unlock();
        }
        if (lost) {
            throw LockLostException.of(
                    LeaseKind.LOCK,
                    this.name,
                    "its lease was lost before unlock; the work it guarded may have overlapped another holder's");
        }
    }

    /** Not supported: a distributed lock has no condition queue. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Lock '" + this.name + "' is distributed and has no conditions");
    }

    /**
     * Returns whether the current thread holds this lock: false once this process knows the hold's
     * lease was lost (another owner may have the lock), though the hold's counts must still be given
     * up with {@link #unlock()}. Calls no Redis; the same as {@link #isHeld()}.
     */
    public boolean isHeldByCurrentThread() {
        return isHeld();
    }

    /** Returns whether the current thread has a hold to unlock, whether or not its lease is still held. */
    boolean holdsLocally() {
        return this.local.isHeldByCurrentThread();
    }

    /**
     * Returns whether the current thread holds this lock and its Redis lease is still held, without
     * calling Redis.
     */
    public boolean isHeld() {
        Lease held = this.lease;
        return this.local.isHeldByCurrentThread() && held != null && held.isHeld();
    }

    /**
     * Returns the fencing token of the current thread's lease: pass it to storage that rejects
     * tokens older than the last it saw.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     */
    public long fencingToken() {
        Lease held = this.lease;
        if (!this.local.isHeldByCurrentThread() || held == null) {
            throw new IllegalMonitorStateException("Lock '" + this.name + "' is not held by the current thread");
        }
        return held.fencingToken();
    }

    /**
     * Renews the current lease for {@code ttl}, else for the fixed lease; a watchdog-renewed lease
     * with no {@code ttl} is only checked (the watchdog renews it).
     */
    void renew(@Nullable Duration ttl) {
        Lease held = this.lease;
        if (held == null) {
            throw new IllegalStateException("Cannot renew lock '" + this.name + "': it is not held");
        }
        Duration renewal = ttl != null ? ttl : this.leaseTime;
        if (renewal != null) {
            held.extend(renewal);
        } else if (!held.isHeld()) {
            throw LockLostException.of(LeaseKind.LOCK, this.name, "its lease was lost");
        }
        touch();
    }

    boolean isLockedInThisProcess() {
        return this.local.isLocked();
    }

    long lastUsedNanos() {
        return this.lastUsedNanos;
    }

    /**
     * Marks this lock used now, for {@link TurnstileLockRegistry#expireUnusedOlderThan}: on obtain,
     * at the start of every acquisition (before the local lock is taken, so that an expiry starting
     * in between keeps it) and on every unlock.
     */
    void touch() {
        this.lastUsedNanos = System.nanoTime();
    }

    /**
     * For an acquisition that just took the local lock: whether the thread held it already (the
     * acquisition only counts). A nested acquisition on a lost lease gives its count back and throws.
     */
    private boolean isNested() {
        if (this.local.getHoldCount() == 1) {
            return false;
        }
        Lease held = this.lease;
        if (held == null || !held.isHeld()) {
            this.local.unlock();
            throw LockLostException.of(
                    LeaseKind.LOCK,
                    this.name,
                    "its lease was lost while this thread held it; unlock every hold of it (each unlock"
                            + " reports the loss), then acquire it again");
        }
        return true;
    }

    /** Takes the Redis lock for the hold that the current thread just began; false if the wait passed. */
    private boolean acquireLease(Duration wait) {
        Optional<Lease> acquired = this.redisLock.tryAcquire(wait, this.leaseTime);
        acquired.ifPresent(fresh -> this.lease = fresh);
        touch();
        return acquired.isPresent();
    }

    private boolean acquireLeaseOrLeave(Duration wait) {
        boolean held = false;
        try {
            held = acquireLease(wait);
            return held;
        } finally {
            if (!held) {
                this.local.unlock();
            }
        }
    }

    private static InterruptedException interruptedBy(LockAcquisitionException e) {
        Thread.interrupted();
        InterruptedException interrupted = new InterruptedException(e.getMessage());
        interrupted.initCause(e);
        return interrupted;
    }

    @Override
    public String toString() {
        return "TurnstileLock['" + this.name + "', " + (this.local.isLocked() ? "locked" : "unlocked") + "]";
    }
}
