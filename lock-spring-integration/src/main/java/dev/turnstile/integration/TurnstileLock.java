package dev.turnstile.integration;

import dev.turnstile.redis.Lease;
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
 * the threads of this process queue locally), nested ones only count, and the last {@link #unlock()}
 * releases it. Only the holding thread may unlock.
 *
 * <p>A nested acquisition finds out whether the Redis lease is still held; if it was lost (expired,
 * renewals cut off), it takes the Redis lock again within the same wait, with a new fencing token,
 * or fails (it returns false, or waits on for {@link #lock()}). That is how {@code
 * LockRegistryLeaderInitiator}'s heartbeat notices a lost leadership.
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
    private volatile @Nullable Lease lease;
    /** The hold count at which the current lease was taken: it is released when the count drops below. */
    private int leaseHoldCount;

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
     * @throws dev.turnstile.redis.RedisUnavailableException if Redis cannot be reached; the lock is
     *     then not held
     */
    @Override
    public void lock() {
        this.local.lock();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (ensureLease(WAIT_CHUNK)) {
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

    @Override
    public void lockInterruptibly() throws InterruptedException {
        this.local.lockInterruptibly();
        try {
            while (!ensureLease(WAIT_CHUNK)) {
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

    /** Takes the lock if it is free now, without waiting (an interrupted thread gets false). */
    @Override
    public boolean tryLock() {
        if (!this.local.tryLock()) {
            return false;
        }
        try {
            return ensureLeaseOrLeave(Duration.ZERO);
        } catch (LockAcquisitionException e) {
            return false; // interrupted: the flag stays set
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        long wait = unit.toNanos(time); // saturates at Long.MAX_VALUE
        long start = System.nanoTime();
        if (!this.local.tryLock(time, unit)) {
            return false;
        }
        boolean held = false;
        try {
            while (true) {
                long left = wait - (System.nanoTime() - start);
                Duration chunk = Duration.ofNanos(Math.max(0, Math.min(left, WAIT_CHUNK.toNanos())));
                if (ensureLease(chunk)) {
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
     *     may have overlapped another holder's (the lock is released locally all the same)
     */
    @Override
    public void unlock() {
        if (!this.local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("Lock '" + this.name + "' is not held by thread "
                    + Thread.currentThread().getName());
        }
        try {
            if (this.local.getHoldCount() <= this.leaseHoldCount || this.local.getHoldCount() == 1) {
                // The hold that took the lease ends: so does the lease (nested holds taken on a
                // lost lease's behalf may outlive it; they take a new one when they need it).
                Lease held = this.lease;
                this.lease = null;
                this.leaseHoldCount = 0;
                if (held != null && !held.release()) {
                    throw LockLostException.of(
                            "lock",
                            this.name,
                            "its lease was lost before unlock; the work it guarded may have overlapped another holder's");
                }
            }
        } finally {
            this.touch();
            this.local.unlock();
        }
    }

    /** Not supported: a distributed lock has no condition queue. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Lock '" + this.name + "' is distributed and has no conditions");
    }

    /** Returns whether the current thread holds this lock (locally; see {@link #isHeld()}). */
    public boolean isHeldByCurrentThread() {
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
            throw LockLostException.of("lock", this.name, "its lease was lost");
        }
        touch();
    }

    boolean isLockedInThisProcess() {
        return this.local.isLocked();
    }

    long lastUsedNanos() {
        return this.lastUsedNanos;
    }

    void touch() {
        this.lastUsedNanos = System.nanoTime();
    }

    /** Makes sure the current thread (holding the local lock) has a live lease; false if the wait passed. */
    private boolean ensureLease(Duration wait) {
        Lease held = this.lease;
        if (held != null && held.isHeld()) {
            touch();
            return true;
        }
        Optional<Lease> acquired = this.redisLock.tryAcquire(wait, this.leaseTime);
        acquired.ifPresent(fresh -> {
            if (held != null) {
                held.close(); // the lost one: frees what may be left of it, owner-checked
            }
            this.lease = fresh;
            this.leaseHoldCount = this.local.getHoldCount();
        });
        // Not acquired: a lost lease stays, so the unlock of the hold that took it reports the loss.
        touch();
        return acquired.isPresent();
    }

    private boolean ensureLeaseOrLeave(Duration wait) {
        boolean held = false;
        try {
            held = ensureLease(wait);
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
