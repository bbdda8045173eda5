package dev.turnstile.redis.internal;

import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One Redis grant of a lock, passed from thread to thread of this process while they queue for it
 * (lock cohorting, after Dice, Marathe and Shavit, "Lock Cohorting", PPoPP 2012). All holders of a
 * cohort share the grant's owner token in Redis; each gets its own fencing token from the block the
 * acquire reserved, so tokens still strictly increase in the order the holds happen, and the next
 * grant in Redis (in any process) continues above the block.
 *
 * <p>A cohort is bounded: each block serves at most {@code holders} holders (the tokens reserved)
 * and {@code maxAgeNanos} of passing after it was reserved in Redis, after which the lock goes back
 * to Redis and the waiters of other processes get their turn. While a block is being used, the
 * cohort may ask Redis for the next one ({@link Refill}): Redis grants it only while this owner
 * still holds the lock and no other client waits for it. A refill never touches the key's expiry:
 * each holder's lease still counts from what its own chain of holders knows of the key. So passes
 * go on without a gap while this process is the only one that wants the lock, and a client that
 * starts waiting is served after at most the block in use and one more. Used by one occupant at a
 * time (hand-offs go through the gate's lock); a refill runs on the thread that passed the lock on
 * while the next holders pass it, so the state is guarded by this object's monitor.
 */
final class Cohort {

    /**
     * Reserves the next block of a cohort in Redis; called by a thread that has passed the lock on
     * (the holders go on passing meanwhile). It answers with {@link #refilled} if Redis granted the
     * block; otherwise the block in use is the cohort's last. It never throws.
     */
    @FunctionalInterface
    interface Refill {

        /** Asks Redis for {@code cohort}'s next block; its counter lives at least {@code leaseNanos} plus the retention. */
        void start(Cohort cohort, long leaseNanos);
    }

    private final String ownerToken;
    private final int holders;
    private final long maxAgeNanos;
    private final @Nullable Refill refill;
    private long sentNanos;
    private long grantedAtMillis;
    private long nextToken;
    private long lastToken;
    /** Whether a refill was asked for the block in use (at most one per block). */
    private boolean refillAsked;
    /** The next block, reserved in Redis and not yet used; null if none. */
    private @Nullable Block next;

    /**
     * @param ownerToken the grant's owner token in Redis
     * @param holders the most holders of each block
     * @param maxAgeNanos how long after a block was reserved (the acquire or the refill was sent)
     *     the lock may still be passed on with it
     * @param grant the block the acquire reserved: its first token is the acquiring holder's
     * @param refill how to reserve the next block, or null: the cohort ends with its first block
     */
    Cohort(String ownerToken, int holders, long maxAgeNanos, Block grant, @Nullable Refill refill) {
        this.ownerToken = ownerToken;
        this.holders = holders;
        this.maxAgeNanos = maxAgeNanos;
        this.refill = holders > 1 ? refill : null;
        use(grant);
        this.nextToken++; // the first token is the acquiring holder's
    }

    String ownerToken() {
        return this.ownerToken;
    }

    /** The most holders of each block: the tokens a grant or refill reserves. */
    int holders() {
        return this.holders;
    }

    /**
     * Returns the next holder's fencing token, or -1 when the cohort must end: its block is used up
     * or too old, and no next block was reserved. Call {@link #refillIfDue} after a token was taken.
     */
    synchronized long takeToken(long nowNanos) {
        if (this.nextToken > this.lastToken || nowNanos - this.sentNanos > this.maxAgeNanos) {
            Block block = this.next;
            if (block == null || nowNanos - block.sentNanos > this.maxAgeNanos) {
                // A block reserved too long ago is not used either: a forced release may have
                // come after it, and only a block's age bounds the passes after one.
                return -1;
            }
            this.next = null;
            this.refillAsked = false;
            use(block);
        }
        return this.nextToken++;
    }

    private void use(Block block) {
        this.nextToken = block.firstToken;
        this.lastToken = block.firstToken + this.holders - 1;
        this.sentNanos = block.sentNanos;
        this.grantedAtMillis = block.grantedAtMillis;
    }

    /**
     * Asks for the next block once a quarter of the one in use is gone (by holders or by age), if
     * the cohort refills and has not asked yet for this block; the call to Redis runs on the calling
     * thread. Call after a hand-off, outside the gate's lock.
     *
     * @param leaseNanos the passing holder's lease: the reserved tokens' counter lives at least that
     *     plus the fence retention
     */
    void refillIfDue(long nowNanos, long leaseNanos) {
        Refill refill = this.refill;
        if (refill == null) {
            return;
        }
        synchronized (this) {
            long used = this.nextToken - (this.lastToken - this.holders + 1);
            boolean due = used * 4 >= this.holders || (nowNanos - this.sentNanos) * 4 >= this.maxAgeNanos;
            if (this.refillAsked || !due) {
                return;
            }
            this.refillAsked = true;
        }
        refill.start(this, leaseNanos);
    }

    /** Redis reserved the next block. */
    synchronized void refilled(Block block) {
        this.next = block;
    }

    /**
     * The server's clock at a hand-off made at {@code nowNanos}, never earlier than the truth: the
     * last reservation's server time plus the local time since it was sent (which is at least the
     * time since it ran).
     */
    synchronized long serverMillisAt(long nowNanos) {
        return this.grantedAtMillis + TimeUnit.NANOSECONDS.toMillis(nowNanos - this.sentNanos + 999_999);
    }

    /**
     * A block of tokens reserved in Redis (by the acquire or a refill).
     *
     * @param firstToken the block's first token; the next {@code holders - 1} are reserved with it
     * @param sentNanos {@link System#nanoTime()} before the call that reserved it was sent
     * @param grantedAtMillis the server's clock when it was reserved
     */
    record Block(long firstToken, long sentNanos, long grantedAtMillis) {}
}
