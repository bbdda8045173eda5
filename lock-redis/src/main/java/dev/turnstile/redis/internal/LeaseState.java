package dev.turnstile.redis.internal;

import dev.turnstile.redis.LeaseListener;
import dev.turnstile.redis.LeaseLostEvent;
import dev.turnstile.redis.LeaseLostEvent.Reason;
import dev.turnstile.redis.LockLostException;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state of one {@link ManagedLease} and every change to it: its {@link LeasePhase phase}, its
 * {@link LeaseClock clock}, its {@link LeaseTimers timers} and its {@link LeaseLoss loss}, all
 * guarded by one lock ({@link #lock()}) that is never held across a call to Redis: the deadline
 * thread, which only takes it to update the state, never waits on Redis. It makes no call to Redis
 * itself but the owner-checked, best-effort free of a lost grant, off the caller's thread.
 */
final class LeaseState {

    private static final Logger log = LoggerFactory.getLogger(ManagedLease.class);

    private final Leases leases;
    private final LeaseId id;
    private final Grant grant;
    private final LocalPlace place;
    /** Whether the grant may outlive the lease's own deadline (one passed on): freed when the lease is lost. */
    private final boolean freeOnLoss;

    private final LeaseCalls lock = new LeaseCalls();
    private final LeaseClock clock;
    private final LeaseTimers timers;
    private final LeaseLoss loss;
    /** Where the lease is in its life (read without the lock by {@link #isHeld()}). */
    private volatile LeasePhase phase = LeasePhase.HELD;

    /**
     * @param renewal makes the renewal chain's step (or a fixed lease's top-up) over this state; it
     *     runs on an I/O thread, first after {@link #start()}
     * @param freeOnLoss whether the grant may outlive the lease's own deadline (one passed on)
     */
    LeaseState(
            Leases leases,
            LeaseId id,
            LeaseClock clock,
            Grant grant,
            LocalPlace place,
            boolean freeOnLoss,
            Function<LeaseState, Runnable> renewal) {
        this.leases = leases;
        this.id = id;
        this.clock = clock;
        this.grant = grant;
        this.place = place;
        this.freeOnLoss = freeOnLoss;
        this.loss = new LeaseLoss(leases, id);
        this.timers = new LeaseTimers(leases.watchdog(), renewal.apply(this), this::onDeadline);
    }

    /**
     * The lock guarding this state; notified whenever a renewal, an extension or a release is done.
     * Never held across a call to Redis.
     */
    LeaseCalls lock() {
        return this.lock;
    }

    LeaseClock clock() {
        return this.clock;
    }

    /** The phase now; read it under {@link #lock()} to act on it. */
    LeasePhase phase() {
        return this.phase;
    }

    Leases leases() {
        return this.leases;
    }

    LeaseId id() {
        return this.id;
    }

    Grant grant() {
        return this.grant;
    }

    LocalPlace place() {
        return this.place;
    }

    /** Starts the deadline check and, when due, renewal; call once, right after construction. */
    void start() {
        synchronized (this.lock) {
            armDeadline();
            if (this.clock.renews()) {
                // Once two thirds of a lease are left: a third of a lease after a fresh grant.
                this.timers.scheduleRenewal(this.clock.firstRenewalDelay());
            }
        }
    }

    boolean isHeld() {
        return !this.phase.ended() && this.clock.beforeDeadline();
    }

    /** Tries the renewal again before the deadline. Call under the lock. */
    void retryRenewal() {
        this.timers.scheduleRenewal(this.clock.retryDelay());
    }

    /**
     * Takes {@code transition} (one of {@link LeasePhase}'s), ending the timers if it ends the lease.
     *
     * @return the phase before
     */
    LeasePhase take(UnaryOperator<LeasePhase> transition) {
        synchronized (this.lock) {
            LeasePhase was = this.phase;
            this.phase = transition.apply(was);
            // A release in flight stops the timers when it completes or fails, after any hand-off:
            // meanwhile they find the lease ended and do nothing.
            if (this.phase.ended() && this.phase != LeasePhase.RELEASING) {
                this.timers.stop();
            }
            return was;
        }
    }

    /**
     * Marks the lease lost, if it was still held (and, for a deadline, the deadline has passed), and
     * tells every listener: the loss is logged, a grant passed on is freed, the local place left,
     * then the listeners told. Call without the lock.
     */
    void markLost(Reason reason) {
        LeaseLoss.Told told;
        synchronized (this.lock) {
            boolean byDeadline = reason == Reason.RENEWAL_MISSED || reason == Reason.LEASE_ELAPSED;
            if (this.phase.ended() || (byDeadline && this.clock.untilDeadline() > 0)) {
                // Released, already lost, or renewed in time after all (the deadline moved).
                return;
            }
            this.phase = this.phase.lose();
            this.timers.stop();
            told = this.loss.record(reason, this.clock.overdue());
        }
        if (told == null) {
            return; // never: a held lease has no loss recorded
        }
        told.logDetected();
        if (this.freeOnLoss) {
            // Its key may live longer than its own lease: free it, so others wait no longer.
            this.leases.watchdog().execute(this::freeQuietly);
        }
        this.place.leave(-1);
        told.publish();
    }

    /** The loss of a lease whose deadline passed: a missed renewal, or a fixed lease's end. */
    Reason deadlineReason() {
        return this.clock.renewedByWatchdog() ? Reason.RENEWAL_MISSED : Reason.LEASE_ELAPSED;
    }

    /** Reports, once, the loss of a lease that ended and was then found no longer this owner's. */
    void reportLostAfterEnd(Reason reason, String found) {
        LeaseLoss.Told told;
        synchronized (this.lock) {
            told = this.loss.record(reason, this.clock.overdue());
        }
        if (told != null) {
            told.logFoundAfterEnd(found);
            told.publish();
        }
    }

    /** Keeps {@code listener} for the loss, or tells it at once when the lease was lost already. */
    void onLost(LeaseListener listener) {
        LeaseLostEvent event;
        synchronized (this.lock) {
            event = this.loss.listen(listener);
        }
        if (event != null) {
            Leases.notifySafely(listener, event);
        }
    }

    LockLostException lostException(String why) {
        synchronized (this.lock) {
            return this.loss.exception(why);
        }
    }

    /** Whether the lease ended by its owner's release (not by loss). */
    boolean endedByOwner() {
        synchronized (this.lock) {
            return this.phase.ended() && this.loss.event() == null;
        }
    }

    /**
     * Tells the local place what a call to Redis found. A grant found gone only after this lease's
     * deadline may simply have expired, which says nothing of the holders before: then nothing.
     */
    void tellPlace(boolean held) {
        if (held || this.clock.untilDeadline() > 0) {
            this.place.redisAnswered(held);
        }
    }

    /** Lowers the deadline to what a renewal sent at {@code sentNanos} for {@code lease} allows, if that is earlier. */
    void capDeadline(long sentNanos, Duration lease) {
        synchronized (this.lock) {
            if (!this.phase.ended() && this.clock.cap(sentNanos, lease, this.grant.driftNanos(lease))) {
                armDeadline();
            }
        }
    }

    /**
     * Moves the deadline after a renewal or extension sent at {@code sentNanos} succeeded in Redis,
     * unless the lease ended meanwhile or its deadline passed while the call was in flight: a lease
     * past its deadline is lost for good, even if Redis still had the grant.
     *
     * @return whether the lease is held with the new deadline
     */
    boolean applyRenewal(long sentNanos, Duration renewal, boolean extension) {
        synchronized (this.lock) {
            if (this.phase.ended() || this.clock.untilDeadline() <= 0) {
                return false;
            }
            this.clock.renewed(sentNanos, renewal, this.grant.driftNanos(renewal), extension);
            armDeadline();
            if (this.clock.renewedByWatchdog()) {
                this.timers.scheduleRenewal(renewal.toNanos() / 3);
            }
            return true;
        }
    }

    /**
     * Frees, owner-checked and best effort, a grant that a renewal refreshed in Redis after the
     * lease had already been reported lost, so it does not block others for a whole lease.
     */
    void freeIfNotReleased() {
        boolean released;
        synchronized (this.lock) {
            released = this.phase.releasedInRedis();
        }
        if (!released) {
            freeQuietly();
        }
    }

    /** Frees, owner-checked and best effort, what may be left of a lost lease's grant. */
    void freeQuietly() {
        try {
            this.grant.release();
        } catch (RuntimeException e) {
            log.debug(
                    "Could not free lost {} '{}': {}; it expires by its TTL",
                    this.id.label(),
                    this.id.name(),
                    e.getMessage());
        }
    }

    /** The deadline check, on the deadline thread: local state only, never Redis. */
    private void onDeadline() {
        if (this.phase.ended()) {
            return;
        }
        if (this.clock.untilDeadline() <= 0) {
            markLost(deadlineReason());
        } else {
            synchronized (this.lock) {
                armDeadline();
            }
        }
    }

    /** Replaces the pending deadline check with one at the current deadline. Call under the lock. */
    private void armDeadline() {
        this.timers.armDeadline(this.clock.untilDeadline());
    }
}
