package dev.turnstile.shedlock;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LockLostException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * One ShedLock lock on a Turnstile lease. Usable once: {@link #unlock()} or {@link #extend} ends
 * it (an extension returns a new lock on the same lease), and any later call throws {@link
 * IllegalStateException}, as ShedLock's contract says.
 */
final class TurnstileSimpleLock implements SimpleLock {

    private final Lease lease;
    /** {@link System#nanoTime()} before the acquire was sent: no later than the grant. */
    private final long acquireStartedNanos;
    /** How long after the grant the lock must be kept at least. */
    private final Duration holdFromGrant;

    private final AtomicBoolean valid = new AtomicBoolean(true);

    TurnstileSimpleLock(Lease lease, long acquireStartedNanos, Duration holdFromGrant) {
        this.lease = lease;
        this.acquireStartedNanos = acquireStartedNanos;
        this.holdFromGrant = holdFromGrant.isNegative() ? Duration.ZERO : holdFromGrant;
    }

    /**
     * Releases the lock, or, while {@code lockAtLeastFor} has not passed, leaves it to expire when it
     * has (by the Redis server's clock).
     */
    @Override
    public void unlock() {
        checkValid("unlocked");
        this.lease.releaseAfter(this.holdFromGrant); // may throw when Redis is down: then still valid, retry
        this.valid.set(false);
    }

    /**
     * Sets the lease to {@code lockAtMostFor} from now, and the minimum hold to {@code
     * lockAtLeastFor} from now.
     *
     * @return the extended lock, or empty if this lock's lease has already expired
     */
    @Override
    public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
        checkValid("extended");
        if (lockAtLeastFor.compareTo(lockAtMostFor) > 0) {
            throw new IllegalArgumentException("lockAtLeastFor (" + lockAtLeastFor + ") of ShedLock lock '"
                    + this.lease.name() + "' is longer than lockAtMostFor (" + lockAtMostFor + ")");
        }
        try {
            this.lease.extend(lockAtMostFor); // may throw when Redis is down: then still valid, retry
        } catch (LockLostException expired) {
            this.valid.set(false);
            return Optional.empty();
        }
        this.valid.set(false);
        // The hold is counted from the grant in Redis; time since the grant is at most the time
        // since the acquire was sent, so the lock is kept at least lockAtLeastFor from now.
        Duration sinceAcquire = Duration.ofNanos(System.nanoTime() - this.acquireStartedNanos);
        return Optional.of(
                new TurnstileSimpleLock(this.lease, this.acquireStartedNanos, sinceAcquire.plus(lockAtLeastFor)));
    }

    private void checkValid(String how) {
        if (!this.valid.get()) {
            throw new IllegalStateException("ShedLock lock '" + this.lease.name()
                    + "' was already unlocked or extended; it cannot be " + how + " again");
        }
    }

    @Override
    public String toString() {
        return "TurnstileSimpleLock['" + this.lease.name() + "', fencing token " + this.lease.fencingToken() + "]";
    }
}
