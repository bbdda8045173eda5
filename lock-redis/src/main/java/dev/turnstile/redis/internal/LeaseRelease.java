package dev.turnstile.redis.internal;

import dev.turnstile.redis.LeaseLostEvent.Reason;
import dev.turnstile.redis.TurnstileException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owner's release of one {@link ManagedLease}: in Redis, with a hold, or by passing the grant to
 * the next thread queued at the lease's local place. One release at a time. A release with a hold,
 * and one that passes the grant on, waits for a renewal in flight (a late one would reset the time
 * to live the hold or the next holder relies on); a plain release does not wait: it releases in
 * Redis, and the late renewal then finds the grant gone and changes nothing. A release that finds
 * the grant no longer this owner's reports the lease lost; one of a lease already lost answers false
 * at once and frees what may be left of the grant off the caller's thread.
 */
final class LeaseRelease {

    private static final Logger log = LoggerFactory.getLogger(ManagedLease.class);

    private final LeaseState state;

    LeaseRelease(LeaseState state) {
        this.state = state;
    }

    /**
     * Releases, keeping the grant in Redis until {@code holdAtLeast} has passed since it was granted.
     *
     * @return false if the grant was no longer this owner's, or was released before
     */
    boolean release(Duration holdAtLeast) {
        LeaseCalls lock = this.state.lock();
        boolean quiet;
        @Nullable Thread outer;
        synchronized (lock) {
            lock.awaitDone(false);
            if (this.state.phase().releasedInRedis()) {
                return false;
            }
            if (!holdAtLeast.isZero()) {
                lock.awaitDone(true);
            }
            quiet = !lock.renewal.elsewhere();
            outer = lock.release.begin();
        }
        try {
            return releaseInRedis(holdAtLeast, quiet);
        } finally {
            lock.release.end(outer);
        }
    }

    /**
     * The owner's release, with no other release in flight.
     *
     * @param quiet whether no renewal is in flight: only then may the grant be passed on
     */
    private boolean releaseInRedis(Duration holdAtLeast, boolean quiet) {
        if (!this.state.phase().ended() && this.state.clock().untilDeadline() <= 0) {
            // Past the deadline: report the loss before anything else, whatever the deadline
            // thread has managed so far.
            this.state.markLost(this.state.deadlineReason());
        }
        LeasePhase was = this.state.take(LeasePhase::release);
        if (was.lost()) {
            // Reported already, and never held on (its place was left): the answer tells the caller,
            // and what may be left of the grant is freed (owner-checked) off the caller's thread, so
            // a release during a partition or a Redis stall never blocks the caller or fails.
            this.state.leases().watchdog().execute(this.state::freeQuietly);
            return false;
        }
        // A release that failed before already left this lease's local place: a retry only frees
        // the grant in Redis, it never passes it on.
        boolean retry = was.leftPlace();
        LocalPlace place = this.state.place();
        long result;
        boolean passedOn = false;
        try {
            if (!holdAtLeast.isZero()) {
                result = this.state.grant().releaseAfter(holdAtLeast);
            } else if (quiet && !retry && passOn(place)) {
                passedOn = true;
                result = 0;
            } else {
                result = this.state.grant().release();
            }
        } catch (TurnstileException e) {
            if (!this.state.take(LeasePhase::failed).leftPlace()) {
                place.leave(-1);
            }
            throw e;
        }
        logReleased(holdAtLeast, result, passedOn);
        boolean leave = !this.state.take(LeasePhase::released).leftPlace() && !passedOn;
        if (!passedOn) {
            this.state.tellPlace(result >= 0);
        }
        if (leave) {
            place.leave(result);
        }
        if (result < 0 && !retry) {
            // The grant was no longer this owner's (force-released, or expired in Redis before the
            // local deadline): the work ran without it for a while, and that is never silent.
            this.state.reportLostAfterEnd(
                    result == Grant.FORCED_FROM_OWNER ? Reason.FORCE_RELEASED : Reason.EXPIRED_IN_REDIS,
                    "found at its release");
        }
        return result >= 0;
    }

    /**
     * Passes the grant to the next thread queued at the local place, if one is. When it passes
     * without Redis confirming the grant, a later holder that finds it gone reports this lease lost.
     */
    private boolean passOn(LocalPlace place) {
        LeaseClock clock = this.state.clock();
        return place.passOn(
                clock.deadlineNanos(),
                clock.leaseTime().toNanos(),
                () -> this.state.reportLostAfterEnd(
                        Reason.EXPIRED_IN_REDIS, "found after it was passed on, by a later holder of the grant"));
    }

    private void logReleased(Duration holdAtLeast, long result, boolean passedOn) {
        if (log.isDebugEnabled()) {
            log.debug(
                    "Released {} '{}' (fencing token {}): {}",
                    this.state.id().label(),
                    this.state.id().name(),
                    this.state.id().fencingToken(),
                    result < 0
                            ? "no longer held"
                            : passedOn
                                    ? "passed on locally"
                                    : holdAtLeast.isZero()
                                            ? "freed"
                                            : "kept for at least " + Durations.format(holdAtLeast)
                                                    + " after its grant");
        }
    }
}
