package dev.turnstile.redis.internal;

import java.util.concurrent.TimeUnit;

/**
 * One Redis grant of a lock, passed from thread to thread of this process while they queue for it
 * (lock cohorting, after Dice, Marathe and Shavit, "Lock Cohorting", PPoPP 2012). All holders of a
 * cohort share the grant's owner token in Redis; each gets its own fencing token from the block the
 * acquire reserved, so tokens still strictly increase in the order the holds happen, and the next
 * grant in Redis (in any process) continues above the block.
 *
 * <p>A cohort is bounded: at most {@code holders} holders (the tokens reserved) and {@code
 * maxAgeNanos} of passing after the grant in Redis, after which the lock goes back to Redis and the
 * waiters of other processes get their turn. Used by one occupant at a time (hand-offs go through
 * the gate's lock).
 */
final class Cohort {

    private final String ownerToken;
    private final long maxAgeNanos;
    private final long sentNanos;
    private final long grantedAtMillis;
    private final long lastToken;
    private long nextToken;

    /**
     * @param ownerToken the grant's owner token in Redis
     * @param firstToken the fencing token of the first holder; the next {@code holders - 1} are
     *     reserved for the holders it passes the lock to
     * @param holders the most holders of the cohort
     * @param maxAgeNanos how long after the acquire was sent the lock may still be passed on
     * @param sentNanos {@link System#nanoTime()} before the acquire was sent
     * @param grantedAtMillis the server's clock at the grant
     */
    Cohort(String ownerToken, long firstToken, int holders, long maxAgeNanos, long sentNanos, long grantedAtMillis) {
        this.ownerToken = ownerToken;
        this.maxAgeNanos = maxAgeNanos;
        this.sentNanos = sentNanos;
        this.grantedAtMillis = grantedAtMillis;
        this.nextToken = firstToken + 1;
        this.lastToken = firstToken + holders - 1;
    }

    String ownerToken() {
        return this.ownerToken;
    }

    /**
     * Returns the next holder's fencing token, or -1 when the cohort must end: its tokens are used
     * up or it is too old.
     */
    long takeToken(long nowNanos) {
        if (this.nextToken > this.lastToken || nowNanos - this.sentNanos > this.maxAgeNanos) {
            return -1;
        }
        return this.nextToken++;
    }

    /**
     * The server's clock at a hand-off made at {@code nowNanos}, never earlier than the truth: the
     * grant plus the local time since the acquire was sent (which is at least the time since the
     * grant).
     */
    long serverMillisAt(long nowNanos) {
        return this.grantedAtMillis + TimeUnit.NANOSECONDS.toMillis(nowNanos - this.sentNanos + 999_999);
    }
}
