package dev.turnstile.redis.internal;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * One unfair semaphore's queue in this process: queues the threads of this process that wait for a
 * permit of it, so that at most
 * {@code limit} of them at a time (the queue's <em>occupants</em>) hold a permit or contend for one
 * in Redis; the others wait here, in arrival order, without any Redis traffic. A try that does not
 * wait never queues: it goes to Redis at once, as before.
 *
 * <p>When an occupant releases while others queue, its permit may pass to the first of them without
 * a Redis round trip (the permit stays leased in Redis under the same id and its server-side
 * expiry; the next holder's lease counts from the previous holder's deadline and is renewed in Redis
 * like any other), when all of this holds:
 *
 * <ul>
 *   <li>enough of the permit's lease is left ({@link LocalGates#minLeftToPass});
 *   <li>the permit's grant in Redis has served fewer than the cohort's holders and is younger than
 *       its age ({@code lockCohort}, 32 holders and 20 ms by default), so other processes get their
 *       turn;
 *   <li>a fencing token is left in the freshest block a call of this process reserved (each grant
 *       reserves the cohort's holders, and the counter continues above), and that call was sent
 *       <em>after</em> the waiter began to wait: every token any process got before the waiter
 *       asked is below the block, so a hold asked for after another was granted gets the larger
 *       token, also while other processes hold permits of the same semaphore (tokens are not in
 *       hold order: a waiter may get a block older than tokens already handed out, here or
 *       elsewhere, since it asked before those were granted). When the block at hand cannot serve the waiter, the releasing holder makes
 *       one call that renews its permit and reserves a fresh block (one such call at a time per
 *       semaphore; the others wait for it, up to 20 ms, and then pass on with its tokens or release
 *       in Redis) instead of a release and a new acquire.
 * </ul>
 *
 * <p>A pass that uses tokens at hand asks Redis nothing, so the permit may have vanished from Redis
 * meanwhile (a failover without {@code minReplicas} that lost its writes, an eviction of the key,
 * the server's clock stepping ahead). The permit therefore keeps the holders that passed it on
 * since a call last found it in Redis (its grant, a renewal, a refresh); the next call of a later
 * holder that finds it gone (a renewal, a release, a refresh, or a receiver giving it back) reports
 * each of them lost, as well as itself, and a call that finds it there clears them. The loss is
 * reported by the chain's next call to Redis about the permit: at the latest the release or first
 * renewal of the holder that has it when the grant's cohort age runs out (no pass without a call
 * comes after that). Not when that call finds the permit gone only after its holder's deadline:
 * it may then simply have expired, and only that holder's loss is reported.
 *
 * <p>Otherwise the permit is released in Redis and the first queued thread becomes an occupant and
 * contends there; when the release told another process (a subscriber other than this process's own
 * contenders), that thread lets it try first. The count of holders in the whole deployment is
 * Redis's: a pass never adds a holder, it replaces one.
 */
final class PermitQueue {

    /** The longest a release waits for another holder's refresh of the tokens before it goes on. */
    private static final long REFRESH_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /**
     * What a thread that entered got.
     *
     * @param queue the queue; the thread is one of its occupants until it passes its permit on or
     *     leaves
     * @param handOff the permit passed to it by a local holder, or null: contend in Redis
     * @param yieldFirst whether another process was told of the release that let this thread in:
     *     let it try first
     */
    record Entry(PermitQueue queue, @Nullable PermitHandOff handOff, boolean yieldFirst) {}

    /**
     * A permit passed to the next local holder.
     *
     * @param cohort the permit's grant in Redis
     * @param fencingToken the new holder's token
     * @param keyDeadlineNanos the latest moment the permit is known to live in Redis ({@link
     *     System#nanoTime()}): the previous holder's deadline
     * @param handedNanos when it was passed
     */
    record PermitHandOff(PermitCohort cohort, long fencingToken, long keyDeadlineNanos, long handedNanos) {}

    private final String name;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<QueuedThread<Entry>> waiters = new ArrayDeque<>(4);
    /** Threads holding a permit or contending for one in Redis. */
    private int occupants;
    /** Of the occupants, those holding a permit. */
    private int holding;
    /** The limit the last thread to enter asked for. */
    private int limit = 1;
    /** Guarded by the map's compute in {@link PermitQueues}: threads inside or queued. */
    int users;
    /** The freshest block of reserved tokens: when its acquire was sent, the next and last token. */
    private long blockSentNanos;

    private long blockNext = 1;
    private long blockLast;
    /** Whether a holder is reserving fresh tokens in Redis; {@link #refreshed} is signalled when done. */
    private boolean refreshing;

    private final Condition refreshed = this.lock.newCondition();
    /** The entry of a thread that becomes an occupant and contends in Redis. */
    private final Entry contend = new Entry(this, null, false);

    private final PermitQueues queues;

    /** The queue of semaphore {@code name}, in {@code queues} while a thread is inside or queued. */
    PermitQueue(String name, PermitQueues queues) {
        this.name = name;
        this.queues = queues;
    }

    String name() {
        return this.name;
    }

    /**
     * Enters as an occupant at once when fewer than {@code limit} threads of this process hold or
     * contend (or when the caller does not wait), otherwise after waiting here until {@code
     * deadlineNanos} for a place or a permit passed on.
     *
     * @return the entry, or null if the deadline passed first
     * @throws InterruptedException if interrupted while queued (nothing is held then)
     */
    @Nullable
    Entry await(int limit, boolean waits, long deadlineNanos) throws InterruptedException {
        QueuedThread<Entry> waiter;
        this.lock.lock();
        try {
            this.limit = limit;
            if (!waits || (this.occupants < limit && this.waiters.isEmpty())) {
                this.occupants++;
                return this.contend;
            }
            waiter = new QueuedThread<>();
            this.waiters.addLast(waiter);
        } finally {
            this.lock.unlock();
        }
        return waiter.await(deadlineNanos, this, this.lock, this.waiters, "semaphore '" + this.name + "'");
    }

    /**
     * Records the tokens a grant reserved beyond its own: the first {@code holders - 1} after
     * {@code firstToken}. Kept if its acquire was sent after the block held now (or that one is
     * used up).
     */
    void offerTokens(long sentNanos, long firstToken, int holders) {
        if (holders <= 1) {
            return;
        }
        this.lock.lock();
        try {
            if (this.blockNext > this.blockLast || sentNanos - this.blockSentNanos > 0) {
                this.blockSentNanos = sentNanos;
                this.blockNext = firstToken + 1;
                this.blockLast = firstToken + holders - 1;
            }
        } finally {
            this.lock.unlock();
        }
    }

    /**
     * The place of an occupant holding {@code cohort}'s permit: on release it passes the permit
     * to the first queued thread when every condition of {@link PermitQueue} holds; otherwise
     * the lease releases in Redis and leaves.
     */
    LocalPlace place(PermitCohort cohort) {
        this.lock.lock();
        try {
            this.holding++;
        } finally {
            this.lock.unlock();
        }
        return cohort.place(this::passOn, told -> exit(true, told));
    }

    private boolean passOn(PermitCohort cohort, long deadlineNanos, long leaseNanos, Runnable lostInRedis) {
        long now = System.nanoTime();
        if (deadlineNanos - now <= LocalGates.minLeftToPass(leaseNanos) || !cohort.mayServe(now)) {
            return false;
        }
        long keyDeadline = deadlineNanos;
        // At most one look after new tokens came (this thread's refresh, or another's it waited for).
        boolean refreshed = false;
        // Whether this thread's own refresh just found the permit in Redis.
        boolean confirmed = false;
        for (int round = 0; round < 2; round++) {
            QueuedThread<Entry> next;
            this.lock.lock();
            try {
                next = this.waiters.peekFirst();
                if (next == null) {
                    return false;
                }
                if (hasTokensFor(next)) {
                    now = System.nanoTime();
                    if (!cohort.mayServe(now)) {
                        return false;
                    }
                    cohort.serveOneMore();
                    if (!confirmed) {
                        cohort.passedUnconfirmed(lostInRedis);
                    }
                    this.holding--; // the next holder's place counts it again
                    this.waiters.pollFirst();
                    next.admit(new Entry(this, new PermitHandOff(cohort, this.blockNext++, keyDeadline, now), false));
                } else {
                    next = null;
                }
            } finally {
                this.lock.unlock();
            }
            if (next != null) {
                next.wake();
                this.queues.leave(this);
                return true;
            }
            if (refreshed) {
                return false;
            }
            if (awaitOtherRefresh()) {
                // Another holder reserved fresh tokens meanwhile: try them, never a call of its own.
                refreshed = true;
                continue;
            }
            // The tokens at hand are older than the next waiter (or used up): one call renews the
            // permit and reserves fresh ones, instead of a release, a wake-up and a fresh acquire.
            PermitCohort.Reserved reserved;
            try {
                // Unreachable: the release fails as one sent to Redis would, at once, and the
                // permit expires by its lease (a second call would only delay the verdict).
                reserved = cohort.refresh(leaseNanos);
            } finally {
                endRefresh();
            }
            if (reserved == null) {
                return false; // gone from Redis: the release that follows reports the loss
            }
            refreshed = true;
            confirmed = true;
            cohort.redisAnswered(true);
            keyDeadline = Math.max(deadlineNanos, reserved.liveUntilNanos());
            offerTokens(reserved.sentNanos(), reserved.firstToken(), cohort.holders());
        }
        return false;
    }

    /**
     * Waits while another holder's refresh is in flight (one at a time serves every waiter queued
     * before it was sent), at most {@link #REFRESH_WAIT_NANOS}.
     *
     * @return true if one was in flight (the caller looks again); false if none was, and this
     *     thread's refresh is now the one in flight (end it with {@link #endRefresh})
     */
    private boolean awaitOtherRefresh() {
        this.lock.lock();
        try {
            if (!this.refreshing) {
                this.refreshing = true;
                return false;
            }
            long left = REFRESH_WAIT_NANOS;
            while (this.refreshing && left > 0) {
                left = this.refreshed.awaitNanos(left);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // kept for the caller; this release goes on
            return true;
        } finally {
            this.lock.unlock();
        }
    }

    private void endRefresh() {
        this.lock.lock();
        try {
            this.refreshing = false;
            this.refreshed.signalAll();
        } finally {
            this.lock.unlock();
        }
    }

    /** Whether the block at hand has a token for {@code next}. Call under the lock. */
    private boolean hasTokensFor(QueuedThread<Entry> next) {
        return this.blockNext <= this.blockLast && this.blockSentNanos - next.enqueuedNanos() > 0;
    }

    /**
     * Leaves after contending in vain (no grant in time, an interrupt, a failure): the first
     * queued thread, if any, becomes an occupant and contends in Redis.
     */
    void exit() {
        exit(false, -1);
    }

    /**
     * Leaves: the first queued thread, if any, becomes an occupant and contends in Redis.
     *
     * @param held whether this occupant held a permit (released in Redis, or lost)
     * @param told the subscribers told of the release (-1 unknown): when another process was
     *     among them, the next occupant lets it try first
     */
    private void exit(boolean held, long told) {
        QueuedThread<Entry> next = null;
        this.lock.lock();
        try {
            this.occupants--;
            if (held) {
                this.holding--;
            }
            if (this.occupants < this.limit) {
                next = this.waiters.pollFirst();
                if (next != null) {
                    // This process's own contenders, waiting in Redis, were told too (once).
                    long elsewhere = told - (this.occupants > this.holding ? 1 : 0);
                    this.occupants++;
                    next.admit(elsewhere > 0 ? new Entry(this, null, true) : this.contend);
                }
            }
        } finally {
            this.lock.unlock();
        }
        if (next != null) {
            next.wake();
        }
        this.queues.leave(this);
    }

    @Override
    public String toString() {
        return "permit queue '" + this.name + "'";
    }
}
