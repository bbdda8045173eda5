package dev.turnstile.redis.internal;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LeaseListener;
import dev.turnstile.redis.LeaseLostEvent;
import dev.turnstile.redis.LeaseLostEvent.Reason;
import dev.turnstile.redis.LockLostException;
import dev.turnstile.redis.TurnstileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state machine of one lease on one name, shared by locks and semaphore permits: the local
 * deadline, watchdog renewal, owner-checked extension and release, loss detection and listeners.
 * Subclasses only say how to renew and release in Redis.
 *
 * <p>States: held, then either released (by the owner) or lost (found gone, taken over, or past
 * its deadline). Both are final; after either, {@link #isHeld()} is false and nothing renews the
 * lease again. Loss is reported exactly once, to the global listeners and the lease's own.
 */
abstract class ManagedLease implements Lease {

    private static final Logger log = LoggerFactory.getLogger(ManagedLease.class);
    private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** What an owner-checked renewal found in Redis. */
    public enum RenewalOutcome {
        /** The grant was ours and its time to live is now the new lease time. */
        RENEWED,
        /** The grant no longer exists. */
        GONE,
        /** Another owner holds the name. */
        TAKEN_OVER
    }

    private final Leases leases;

    private final LeaseKind kind;
    private final String name;
    private final long fencingToken;
    private final boolean renewedByWatchdog;
    private final Object monitor = new Object();
    private final Object releaseMonitor = new Object();
    /**
     * Held across every renewal's and extension's Redis call and its state update, so they apply in
     * Redis order, and while the lease is passed on or held on.
     */
    private final ReentrantLock renewalLock = new ReentrantLock();

    /** The lease's own listeners, created with the first (most leases have none). */
    private @Nullable List<LeaseListener> listeners;

    private volatile Duration leaseTime;
    private volatile long deadlineNanos;
    /**
     * A fixed lease's end as its holder asked for it. A lease passed on from another holder of the
     * same grant may start with an earlier deadline (the key's own expiry); it is then topped up to
     * this end, off the acquiring thread, before the deadline comes.
     */
    private volatile long plannedEndNanos;

    private volatile boolean ended;
    private @Nullable LeaseLostEvent lostEvent;
    /** The renewal chain (watchdog leases only): runs on a renewal thread, may block in Redis. */
    private @Nullable ScheduledFuture<?> timer;
    /** The deadline check: runs on the deadline thread, never calls Redis. */
    private @Nullable ScheduledFuture<?> deadlineTimer;

    private volatile boolean releasedInRedis;
    private boolean endHookRun;

    /**
     * @param sentNanos {@link System#nanoTime()} taken before the acquire request was sent: the
     *     local deadline counts from there, so it never outlives the grant in Redis
     */
    protected ManagedLease(
            Leases leases,
            LeaseKind kind,
            String name,
            long fencingToken,
            Duration leaseTime,
            boolean renewedByWatchdog,
            long sentNanos) {
        this(
                leases,
                kind,
                name,
                fencingToken,
                leaseTime,
                renewedByWatchdog,
                sentNanos + leaseTime.toNanos(),
                sentNanos + leaseTime.toNanos());
    }

    /**
     * A lease whose grant in Redis is known to live until {@code deadlineNanos} only, which may be
     * before {@code plannedEndNanos} (a grant passed on from another holder): a watchdog lease renews
     * in time, a fixed lease is topped up to its planned end.
     */
    protected ManagedLease(
            Leases leases,
            LeaseKind kind,
            String name,
            long fencingToken,
            Duration leaseTime,
            boolean renewedByWatchdog,
            long deadlineNanos,
            long plannedEndNanos) {
        this.leases = leases;
        this.kind = kind;
        this.name = name;
        this.fencingToken = fencingToken;
        this.leaseTime = leaseTime;
        this.renewedByWatchdog = renewedByWatchdog;
        this.deadlineNanos = deadlineNanos;
        this.plannedEndNanos = plannedEndNanos;
    }

    /** Renews the grant in Redis for {@code leaseTime}, if this owner still holds it. */
    protected abstract RenewalOutcome renewInRedis(Duration leaseTime);

    /**
     * Releases the grant in Redis if this owner holds it.
     *
     * @return -1 if this owner did not hold it, else the number of other waiting processes told
     */
    protected abstract long releaseInRedis();

    /**
     * Releases the grant in Redis like {@link #releaseInRedis()}, but keeps it until {@code
     * holdAtLeast} has passed since it was granted (server clock), if that is still ahead.
     *
     * @return -1 if this owner did not hold it, 0 if it was kept, else the number of other waiting
     *     processes told
     */
    protected abstract long releaseInRedisAfter(Duration holdAtLeast);

    /**
     * Ends the lease for its owner's release: by default {@link #releaseInRedis()}; a lock may pass
     * the grant to the next local holder instead.
     *
     * @return as {@link #releaseInRedis()}
     */
    protected long releaseForNext() {
        return releaseInRedis();
    }

    /** Called once when the lease is found lost, before the end hook and the listeners. */
    protected void onLoss() {}

    /** Returns the current lease time in nanoseconds. */
    protected final long leaseTimeNanos() {
        return this.leaseTime.toNanos();
    }

    /** Returns the local deadline ({@link System#nanoTime()}): the grant lives in Redis at least until then. */
    protected final long deadlineNanos() {
        return this.deadlineNanos;
    }

    /**
     * Returns the local deadline after a successful renewal or extension sent at {@code
     * sentNanos}; by default {@code sentNanos + leaseTime}.
     */
    protected long deadlineAfterRenewal(long sentNanos, Duration leaseTime) {
        return sentNanos + leaseTime.toNanos();
    }

    /**
     * Called once when the lease ends locally (release requested or loss), before listeners run.
     *
     * @param waitersElsewhere waiting processes told of the release; -1 if unknown or on loss
     */
    protected void ended(long waitersElsewhere) {}

    /** Starts the deadline check and, for a watchdog lease, renewal; call once, right after construction. */
    public final void start() {
        synchronized (this.monitor) {
            armDeadline();
            if (this.renewedByWatchdog || this.plannedEndNanos - this.deadlineNanos > 0) {
                scheduleTimer(renewalDelay());
            }
        }
    }

    /**
     * When the next renewal (or top-up) is due: once two thirds of a lease are left, i.e. a third of
     * a lease after a fresh grant or renewal.
     */
    private long renewalDelay() {
        return Math.max(0, untilDeadline() - this.leaseTime.toNanos() * 2 / 3);
    }

    @Override
    public final String name() {
        return this.name;
    }

    @Override
    public final List<String> names() {
        return List.of(this.name);
    }

    @Override
    public final long fencingToken() {
        return this.fencingToken;
    }

    @Override
    public final Map<String, Long> fencingTokens() {
        return Map.of(this.name, this.fencingToken);
    }

    @Override
    public final boolean isHeld() {
        return !this.ended && System.nanoTime() < this.deadlineNanos;
    }

    @Override
    public final Duration remaining() {
        return isHeld() ? Duration.ofNanos(Math.max(0, untilDeadline())) : Duration.ZERO;
    }

    @Override
    public final void extend(Duration newLeaseTime) {
        newLeaseTime = Arguments.requireLease(newLeaseTime, "leaseTime");
        this.renewalLock.lock();
        try {
            if (!isHeld()) {
                markLost(this.renewedByWatchdog ? Reason.RENEWAL_MISSED : Reason.LEASE_ELAPSED);
                throw lostException(this.ended && this.lostEvent == null ? "it was released" : "its lease ran out");
            }
            long sent = System.nanoTime();
            RenewalOutcome outcome;
            try {
                outcome = renewInRedis(newLeaseTime);
            } catch (TurnstileException e) {
                // The new time to live may have reached Redis (or some masters) although the call
                // failed: never claim more than the shorter of the old and the new deadline.
                capDeadline(sent, newLeaseTime);
                throw e;
            }
            if (outcome != RenewalOutcome.RENEWED) {
                markLost(outcome == RenewalOutcome.GONE ? Reason.EXPIRED_IN_REDIS : Reason.TAKEN_OVER);
                throw lostException(outcome == RenewalOutcome.GONE ? "it expired in Redis" : "another owner holds it");
            }
            if (!applyRenewal(sent, newLeaseTime, true)) {
                if (endedByOwner()) {
                    // Released meanwhile: the release decides what Redis keeps.
                    throw lostException("it was released while the extension was in flight");
                }
                // The deadline passed while the extension was in flight: the lease was (or is now)
                // reported lost, and stays lost; the caller must not believe it was extended, and
                // the grant it just renewed is freed rather than left to block others.
                markLost(this.renewedByWatchdog ? Reason.RENEWAL_MISSED : Reason.LEASE_ELAPSED);
                freeQuietly();
                throw lostException("its lease ran out before the extension was confirmed");
            }
        } finally {
            this.renewalLock.unlock();
        }
    }

    @Override
    public final boolean release() {
        return end(Duration.ZERO);
    }

    @Override
    public final boolean releaseAfter(Duration holdAtLeast) {
        Arguments.requireNonNegative(holdAtLeast, "holdAtLeast");
        return end(holdAtLeast);
    }

    private boolean end(Duration holdAtLeast) {
        synchronized (this.releaseMonitor) {
            if (this.releasedInRedis) {
                return false;
            }
            // No renewal or extension of this lease may be in flight while it is passed on or held
            // on: a late one would reset the time to live the next holder (or the hold) relies on.
            // A release waits for none: when one is in flight it releases in Redis instead (a late
            // renewal then finds the key gone and changes nothing).
            boolean quiet;
            if (holdAtLeast.isZero()) {
                quiet = this.renewalLock.tryLock();
            } else {
                this.renewalLock.lock();
                quiet = true;
            }
            try {
                return endQuietly(holdAtLeast, quiet);
            } finally {
                if (quiet) {
                    this.renewalLock.unlock();
                }
            }
        }
    }

    private boolean endQuietly(Duration holdAtLeast, boolean quiet) {
        if (!this.ended && untilDeadline() <= 0) {
            // Past the deadline: report the loss before anything else, whatever the deadline
            // thread has managed so far.
            markLost(this.renewedByWatchdog ? Reason.RENEWAL_MISSED : Reason.LEASE_ELAPSED);
        }
        boolean lost;
        boolean retry;
        synchronized (this.monitor) {
            lost = this.lostEvent != null;
            // A release that failed before already left this lease's local place (the end hook
            // ran): a retry only frees the grant in Redis, it never passes it on.
            retry = this.endHookRun;
            this.ended = true;
            cancelTimer();
        }
        if (lost) {
            // Reported already, and never held on: the answer tells the caller, and what may be left
            // of the grant is freed (owner-checked) off the caller's thread, so a release during a
            // partition or a Redis stall never blocks the caller or fails.
            this.releasedInRedis = true;
            runEndHook(-1);
            this.leases.watchdog().execute(this::freeQuietlyAfterLoss);
            return false;
        }
        long result;
        try {
            if (!holdAtLeast.isZero()) {
                result = releaseInRedisAfter(holdAtLeast);
            } else if (quiet && !retry) {
                result = releaseForNext();
            } else {
                result = releaseInRedis();
            }
            if (log.isDebugEnabled()) {
                log.debug(
                        "Released {} '{}' (fencing token {}): {}",
                        this.kind.label(),
                        this.name,
                        this.fencingToken,
                        result < 0
                                ? "no longer held"
                                : holdAtLeast.isZero()
                                        ? "freed"
                                        : "kept for at least " + Durations.format(holdAtLeast) + " after its grant");
            }
        } catch (TurnstileException e) {
            runEndHook(-1);
            throw e;
        }
        this.releasedInRedis = true;
        runEndHook(result);
        return result >= 0 && !lost;
    }

    /** Releases like {@link #release()}, but logs instead of throwing when Redis is unreachable. */
    @Override
    public final void close() {
        try {
            release();
        } catch (TurnstileException e) {
            log.warn(
                    "Could not release {} '{}': {}. It expires in Redis within its lease of {}.",
                    this.kind.label(),
                    this.name,
                    e.getMessage(),
                    Durations.format(this.leaseTime));
        }
    }

    @Override
    public final void onLost(LeaseListener listener) {
        LeaseLostEvent event;
        synchronized (this.monitor) {
            event = this.lostEvent;
            if (event == null) {
                if (this.listeners == null) {
                    this.listeners = new ArrayList<>(2);
                }
                this.listeners.add(listener);
                return;
            }
        }
        Leases.notifySafely(listener, event);
    }

    @Override
    public String toString() {
        return this.kind.label() + " lease '" + this.name + "' (fencing token " + this.fencingToken + ", "
                + (isHeld() ? "held" : "not held") + ")";
    }

    /** Marks the lease lost (if it was still held and not released) and tells every listener. */
    protected final void markLost(Reason reason) {
        LeaseLostEvent event;
        List<LeaseListener> toNotify;
        synchronized (this.monitor) {
            boolean byDeadline = reason == Reason.RENEWAL_MISSED || reason == Reason.LEASE_ELAPSED;
            if (this.ended || (byDeadline && untilDeadline() > 0)) {
                // Released, already lost, or renewed in time after all (the deadline moved).
                return;
            }
            this.ended = true;
            cancelTimer();
            Duration overdue = Duration.ofNanos(Math.max(0, -untilDeadline()));
            event = new LeaseLostEvent(this.kind, this.name, this.fencingToken, reason, overdue);
            this.lostEvent = event;
            toNotify = this.listeners == null ? List.of() : List.copyOf(this.listeners);
            this.listeners = null;
        }
        log.warn(
                "Lost {} '{}' (fencing token {}): {}, detected {} after its deadline",
                this.kind.label(),
                this.name,
                this.fencingToken,
                reason,
                Durations.format(event.overdue()));
        onLoss();
        runEndHook(-1);
        this.leases.publishLoss(event);
        toNotify.forEach(listener -> Leases.notifySafely(listener, event));
    }

    private LockLostException lostException(String why) {
        return LockLostException.of(this.kind.label(), this.name, why);
    }

    /** The deadline check, on the deadline thread: local state only, never Redis. */
    private void onDeadline() {
        if (this.ended) {
            return;
        }
        if (untilDeadline() <= 0) {
            markLost(this.renewedByWatchdog ? Reason.RENEWAL_MISSED : Reason.LEASE_ELAPSED);
        } else {
            synchronized (this.monitor) {
                armDeadline();
            }
        }
    }

    /** The renewal chain of a watchdog lease, on a renewal thread. */
    private void onTimer() {
        try {
            if (this.ended) {
                return;
            }
            if (untilDeadline() <= 0) {
                markLost(this.renewedByWatchdog ? Reason.RENEWAL_MISSED : Reason.LEASE_ELAPSED);
            } else {
                renew();
            }
        } catch (RuntimeException e) {
            // Never let the renewal chain die silently: retry, and the deadline still applies.
            log.error("Unexpected failure renewing {} '{}'", this.kind.label(), this.name, e);
            synchronized (this.monitor) {
                scheduleTimer(retryDelay());
            }
        }
    }

    private void renew() {
        this.renewalLock.lock();
        try {
            if (this.ended) {
                return;
            }
            if (untilDeadline() <= 0) {
                markLost(this.renewedByWatchdog ? Reason.RENEWAL_MISSED : Reason.LEASE_ELAPSED);
                return;
            }
            long sent = System.nanoTime();
            Duration renewal = this.leaseTime;
            if (!this.renewedByWatchdog) {
                // A top-up of a fixed lease: up to its planned end, never beyond.
                long shortfall = this.plannedEndNanos - this.deadlineNanos;
                long toEnd = TimeUnit.NANOSECONDS.toMillis(this.plannedEndNanos - sent);
                if (shortfall <= 0 || toEnd <= 0) {
                    return;
                }
                renewal = Duration.ofMillis(toEnd);
            }
            RenewalOutcome outcome;
            try {
                outcome = renewInRedis(renewal);
            } catch (TurnstileException e) {
                log.debug(
                        "Could not renew {} '{}' ({}); retrying before its deadline",
                        this.kind.label(),
                        this.name,
                        e.getMessage());
                synchronized (this.monitor) {
                    scheduleTimer(retryDelay());
                }
                return;
            }
            switch (outcome) {
                case RENEWED -> {
                    if (applyRenewal(sent, renewal, false)) {
                        this.leases.publishRenewal(this.kind, this.name);
                    } else if (!endedByOwner()) {
                        markLost(this.renewedByWatchdog ? Reason.RENEWAL_MISSED : Reason.LEASE_ELAPSED);
                        freeQuietly();
                    }
                    // Ended by its owner meanwhile: the release (or hold, or hand-off) decides what
                    // Redis keeps; this renewal must not free it.
                }
                case GONE -> markLost(Reason.EXPIRED_IN_REDIS);
                case TAKEN_OVER -> markLost(Reason.TAKEN_OVER);
            }
        } finally {
            this.renewalLock.unlock();
        }
    }

    /** Whether the lease ended by its owner's release (not by loss). */
    private boolean endedByOwner() {
        synchronized (this.monitor) {
            return this.ended && this.lostEvent == null;
        }
    }

    /** Lowers the deadline to what a renewal sent at {@code sentNanos} for {@code lease} allows, if that is earlier. */
    private void capDeadline(long sentNanos, Duration lease) {
        synchronized (this.monitor) {
            long capped = deadlineAfterRenewal(sentNanos, lease);
            if (!this.ended && capped - this.deadlineNanos < 0) {
                this.deadlineNanos = capped;
                armDeadline();
            }
        }
    }

    /**
     * Frees, owner-checked and best effort, a grant that a renewal refreshed in Redis after the
     * lease had already been reported lost, so it does not block others for a whole lease.
     */
    private void freeQuietly() {
        if (!this.releasedInRedis) {
            freeQuietlyAfterLoss();
        }
    }

    /** Frees, owner-checked and best effort, what may be left of a lost lease's grant. */
    private void freeQuietlyAfterLoss() {
        try {
            releaseInRedis();
        } catch (RuntimeException e) {
            log.debug(
                    "Could not free lost {} '{}': {}; it expires by its TTL",
                    this.kind.label(),
                    this.name,
                    e.getMessage());
        }
    }

    /**
     * Moves the deadline after a renewal or extension sent at {@code sentNanos} succeeded in Redis,
     * unless the lease ended meanwhile or its deadline passed while the call was in flight: a lease
     * past its deadline is lost for good, even if Redis still had the grant.
     *
     * @return whether the lease is held with the new deadline
     */
    private boolean applyRenewal(long sentNanos, Duration renewal, boolean extension) {
        synchronized (this.monitor) {
            if (this.ended || untilDeadline() <= 0) {
                return false;
            }
            if (extension) {
                this.leaseTime = renewal;
            }
            this.deadlineNanos = deadlineAfterRenewal(sentNanos, renewal);
            if (extension) {
                this.plannedEndNanos = this.deadlineNanos;
            }
            armDeadline();
            if (this.renewedByWatchdog) {
                scheduleTimer(renewal.toNanos() / 3);
            }
            return true;
        }
    }

    private long retryDelay() {
        long tenth = this.leaseTime.toNanos() / 10;
        return Math.min(Math.max(MIN_RETRY_NANOS, Math.min(tenth, MAX_RETRY_NANOS)), Math.max(0, untilDeadline()));
    }

    private long untilDeadline() {
        return this.deadlineNanos - System.nanoTime();
    }

    /** Replaces the pending renewal (there is only ever one chain per lease). Call under {@code monitor}. */
    private void scheduleTimer(long delayNanos) {
        if (this.timer != null) {
            this.timer.cancel(false);
        }
        if (!this.ended) {
            this.timer = this.leases.watchdog().schedule(this::onTimer, delayNanos);
        }
    }

    /** Replaces the pending deadline check with one at the current deadline. Call under {@code monitor}. */
    private void armDeadline() {
        if (this.deadlineTimer != null) {
            this.deadlineTimer.cancel(false);
        }
        if (!this.ended) {
            this.deadlineTimer = this.leases.watchdog().scheduleDeadline(this::onDeadline, untilDeadline());
        }
    }

    /** Cancels the renewal chain and the deadline check. Call under {@code monitor}. */
    private void cancelTimer() {
        if (this.timer != null) {
            this.timer.cancel(false);
            this.timer = null;
        }
        if (this.deadlineTimer != null) {
            this.deadlineTimer.cancel(false);
            this.deadlineTimer = null;
        }
    }

    private void runEndHook(long waitersElsewhere) {
        synchronized (this.monitor) {
            if (this.endHookRun) {
                return;
            }
            this.endHookRun = true;
        }
        ended(waitersElsewhere);
    }
}
