package dev.turnstile.redis.internal;

import java.util.Deque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A thread of this process queued, in arrival order, for a place that a thread leaving it hands on
 * (a lock's {@link LocalGates gate}, a semaphore's {@link PermitQueue}): it waits, without any Redis
 * traffic, until it is admitted with an entry {@code E}, its deadline passes or it is interrupted.
 * It parks, unless its place asks it to wait awake first for a turn due soon ({@link #await(long,
 * long, Object, ReentrantLock, Deque, String)}).
 *
 * <p>The queue and the entry are guarded by the owner's lock: {@link #admit} is called under it,
 * after the thread was taken off the queue, and {@link #wake} after the lock is released. A thread
 * that gives up takes itself off the queue under the same lock, so it is either admitted or gone,
 * never both.
 *
 * @param <E> what an admitted thread gets
 */
final class QueuedThread<E> {

    /**
     * The most threads of this process waiting awake at once, over all places: four per processor
     * the runtime may use (which follows a container's CPU limit), and none where it may use one,
     * since a waiter awake there only takes the holder's CPU. (One fewer than the processors was
     * tried: on 2 of them the one awake waiter is rarely the next in line, and hand-offs ran slower
     * than with no waiter awake.) Under a CPU quota a lock's gate asks nobody to wait awake, unless
     * {@code awakeWaiting} says {@code ALWAYS} ({@link CpuQuota}).
     */
    static final int MAX_AWAKE_THREADS = awakeThreadsFor(Runtime.getRuntime().availableProcessors());

    static int awakeThreadsFor(int processors) {
        return processors <= 1 ? 0 : 4 * processors;
    }

    /** Threads of this process waiting awake now. */
    private static final AtomicInteger AWAKE = new AtomicInteger();

    /** A thread's wait for a place it joined: its entry, or null when the deadline passed first. */
    @FunctionalInterface
    interface Wait<E> {

        @Nullable
        E await() throws InterruptedException;
    }

    /**
     * Waits for an entry into the place a thread joined; a thread that gets none (its deadline
     * passed, it was interrupted or the wait failed) runs {@code leave}, so the place forgets it.
     *
     * @return the entry, or null if the deadline passed first
     * @throws InterruptedException if interrupted while queued (nothing is held then)
     */
    static <E> @Nullable E awaitOrLeave(Wait<E> wait, Runnable leave) throws InterruptedException {
        E entry = null;
        try {
            entry = wait.await();
            return entry;
        } finally {
            if (entry == null) {
                leave.run();
            }
        }
    }

    private final Thread thread = Thread.currentThread();
    private final long enqueuedNanos = System.nanoTime();
    /** Set under the owner's lock when the thread is let in; null while it waits. */
    private volatile @Nullable E admitted;

    /** Returns {@link System#nanoTime()} when the thread queued. */
    long enqueuedNanos() {
        return this.enqueuedNanos;
    }

    /** Lets the thread in with {@code entry}. Call under the owner's lock, then {@link #wake}. */
    void admit(E entry) {
        this.admitted = entry;
    }

    /** Wakes the thread after {@link #admit}, outside the owner's lock. */
    void wake() {
        LockSupport.unpark(this.thread);
    }

    /**
     * Parks the calling thread, which queued itself in {@code queue}, until it is admitted or
     * {@code deadlineNanos} passes. One admitted at the last moment takes its entry (with its
     * interrupt kept for the caller to check) rather than leave a place handed to nobody.
     *
     * @param owner the gate or queue waited at (the park's blocker, as thread dumps show it)
     * @param lock the lock guarding {@code queue} and the admission
     * @param queued what the thread queued for, as the interrupt's message names it
     * @return the entry, or null if the deadline passed first (the thread left the queue)
     * @throws InterruptedException if interrupted before being admitted (it left the queue)
     */
    @Nullable
    E await(long deadlineNanos, Object owner, ReentrantLock lock, Deque<QueuedThread<E>> queue, String queued)
            throws InterruptedException {
        return await(deadlineNanos, 0, owner, lock, queue, queued);
    }

    /**
     * Waits like {@link #await(long, Object, ReentrantLock, Deque, String)}, but first waits awake
     * for up to {@code awakeNanos} (never past the deadline), calling {@link Thread#yield()} between
     * looks, so that an entry handed over meanwhile is taken without the wake-up a parked thread
     * needs. The yield is a hint: where no other thread wants the CPU the waiter keeps it, and its
     * time counts against a CPU limit like any other. A virtual thread does not wait awake, nor
     * does a thread that would make more than {@link #MAX_AWAKE_THREADS} of this process awake at
     * once: they park at once.
     */
    @Nullable
    E await(
            long deadlineNanos,
            long awakeNanos,
            Object owner,
            ReentrantLock lock,
            Deque<QueuedThread<E>> queue,
            String queued)
            throws InterruptedException {
        if (awakeNanos > 0 && !VirtualThreads.current() && reserveAwake()) {
            try {
                long until = this.enqueuedNanos + awakeNanos;
                stayAwake(deadlineNanos - until < 0 ? deadlineNanos : until);
            } finally {
                AWAKE.decrementAndGet();
            }
        }
        while (true) {
            E entry = this.admitted;
            if (entry != null) {
                return entry;
            }
            long remaining = deadlineNanos - System.nanoTime();
            if (remaining <= 0 || Thread.interrupted()) {
                boolean interrupted = remaining > 0;
                lock.lock();
                try {
                    if (this.admitted != null) {
                        // Let in at the last moment: take it (the caller checks the interrupt).
                        if (interrupted) {
                            Thread.currentThread().interrupt();
                        }
                        return this.admitted;
                    }
                    queue.remove(this);
                } finally {
                    lock.unlock();
                }
                if (interrupted) {
                    throw new InterruptedException("interrupted while queued for " + queued);
                }
                return null;
            }
            LockSupport.parkNanos(owner, remaining);
        }
    }

    /** Counts the calling thread as awake, unless {@link #MAX_AWAKE_THREADS} are already. */
    private static boolean reserveAwake() {
        for (int now = AWAKE.get(); now < MAX_AWAKE_THREADS; now = AWAKE.get()) {
            if (AWAKE.compareAndSet(now, now + 1)) {
                return true;
            }
        }
        return false;
    }

    /** Yields until admitted, interrupted or {@code untilNanos}, whichever comes first. */
    private void stayAwake(long untilNanos) {
        Thread self = Thread.currentThread();
        while (this.admitted == null && untilNanos - System.nanoTime() > 0 && !self.isInterrupted()) {
            Thread.yield();
        }
    }
}
