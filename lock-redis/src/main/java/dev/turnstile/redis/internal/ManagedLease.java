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
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state machine of one lease on one name, for locks, Redlock locks and semaphore permits alike:
 * the local deadline, watchdog renewal (or the top-up of a fixed lease), owner-checked extension
 * and release, the hold after release, loss detection and listeners. What is done in Redis is the
 * {@link Grant}'s; where the grant goes when the lease ends is its {@link LocalPlace}'s.
 *
 * <p>States: held, then either released (by the owner, in Redis or passed to the next local
 * holder) or lost (found gone, taken over, or past its deadline). Both are final; after either,
 * {@link #isHeld()} is false and nothing renews the lease again. Loss is reported exactly once, to
 * the global listeners and the lease's own, never while this lease's lock is held.
 *
 * <p>One lock guards the state, and it is never held across a call to Redis: the deadline thread,
 * which only takes it to update the state, never waits on Redis. Calls to Redis are ordered by two
 * flags under that lock instead: one renewal or extension at a time (so they apply in Redis order),
 * one release at a time, and no renewal while a release is in flight. (A thread may call the
 * lease again from a listener it runs: it never waits for its own call.) A release with a hold, and
 * one that passes the grant on, waits for a renewal in flight (a late one would reset the time to
 * live the hold or the next holder relies on); a plain release does not wait: it releases in
 * Redis, and the late renewal then finds the grant gone and changes nothing.
 */
final class ManagedLease implements Lease {

    /** The losses are told under the name users look for; the rest under this class. */
    private static final Logger log = LoggerFactory.getLogger(ManagedLease.class);

    private static final Logger lossLog = LoggerFactory.getLogger(Leases.LOSS_LOGGER);
    private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Leases leases;
    private final LeaseKind kind;
    private final String name;
    private final long fencingToken;
    private final boolean renewedByWatchdog;
    private final Grant grant;
    private final LocalPlace place;
    /** Whether the grant may outlive the lease's own deadline (one passed on): freed when the lease is lost. */
    private final boolean freeOnLoss;

    /**
     * Guards the state below, and is notified whenever a renewal, an extension or a release is
     * done; never held across a call to Redis.
     */
    private final Object lock = new Object();

    private volatile Duration leaseTime;
    /** The local deadline ({@link System#nanoTime()}): the grant lives in Redis at least until then. */
    private volatile long deadlineNanos;
    /**
     * A fixed lease's end as its holder asked for it. A lease passed on from another holder of the
     * same grant may start with an earlier deadline (the key's own expiry); it is then topped up to
     * this end, off the acquiring thread, before the deadline comes.
     */
    private long plannedEndNanos;
    /** Released or lost (read without the lock by {@link #isHeld()}). */
    private volatile boolean ended;

    private @Nullable LeaseLostEvent lostEvent;
    /** The lease's own listeners, created with the first (most leases have none). */
    private @Nullable List<LeaseListener> listeners;
    /** The renewal chain (or top-up): runs on an I/O thread, may call Redis. */
    private @Nullable ScheduledFuture<?> timer;
    /** The deadline check: runs on the deadline thread, never calls Redis. */
    private @Nullable ScheduledFuture<?> deadlineTimer;
    /** The thread whose renewal or extension is in flight, or null. */
    private @Nullable Thread renewer;
    /** The thread whose release is in flight, or null. */
    private @Nullable Thread releaser;
    /** The grant was released (or passed on, or given up as lost): a later release answers false. */
    private boolean releasedInRedis;
    /** The lease left its local place (or passed it on): a failed release's retry only frees in Redis. */
    private boolean leftPlace;

    private ManagedLease(
            Leases leases,
            LeaseKind kind,
            String name,
            long fencingToken,
            Duration leaseTime,
            boolean renewedByWatchdog,
            long deadlineNanos,
            long plannedEndNanos,
            Grant grant,
            LocalPlace place,
            boolean freeOnLoss) {
        this.leases = leases;
        this.kind = kind;
        this.name = name;
        this.fencingToken = fencingToken;
        this.leaseTime = leaseTime;
        this.renewedByWatchdog = renewedByWatchdog;
        this.deadlineNanos = deadlineNanos;
        this.plannedEndNanos = plannedEndNanos;
        this.grant = grant;
        this.place = place;
        this.freeOnLoss = freeOnLoss;
    }

    /**
     * A lease on a grant just made in Redis. Only assigns fields: nothing can fail between a grant
     * and its lease.
     *
     * @param sentNanos {@link System#nanoTime()} taken before the acquire request was sent: the
     *     local deadline counts from there, so it never outlives the grant in Redis
     * @param place where the grant goes when the lease ends; {@link LocalPlace#NONE} for none
     */
    static ManagedLease granted(
            Leases leases,
            LeaseKind kind,
            String name,
            long fencingToken,
            Duration leaseTime,
            boolean renewedByWatchdog,
            long sentNanos,
            Grant grant,
            LocalPlace place) {
        long deadline = sentNanos + leaseTime.toNanos();
        return new ManagedLease(
                leases,
                kind,
                name,
                fencingToken,
                leaseTime,
                renewedByWatchdog,
                deadline,
                deadline,
                grant,
                place,
                false);
    }

    /**
     * A lease on a lock grant passed on by the previous local holder: held until its own lease ends,
     * but no longer than the key is known to live ({@code handOff}'s key deadline); a watchdog lease
     * renews and a fixed one is topped up before that. When lost, what may be left of the grant is
     * freed, as the key may outlive this lease.
     */
    static ManagedLease passedOn(
            Leases leases,
            String name,
            HandOff handOff,
            Duration leaseTime,
            boolean renewedByWatchdog,
            Grant grant,
            LocalPlace place) {
        return passedOn(
                leases,
                LeaseKind.LOCK,
                name,
                handOff.fencingToken(),
                handOff.keyDeadlineNanos(),
                handOff.handedNanos(),
                leaseTime,
                renewedByWatchdog,
                grant,
                place);
    }

    /**
     * A lease on a grant passed on by the previous local holder of the same grant (a lock's, or a
     * semaphore permit's): as {@link #passedOn(Leases, String, HandOff, Duration, boolean, Grant,
     * LocalPlace)}, with the key's deadline and the hand-off's time given.
     */
    static ManagedLease passedOn(
            Leases leases,
            LeaseKind kind,
            String name,
            long fencingToken,
            long keyDeadlineNanos,
            long handedNanos,
            Duration leaseTime,
            boolean renewedByWatchdog,
            Grant grant,
            LocalPlace place) {
        long plannedEnd = handedNanos + leaseTime.toNanos();
        return new ManagedLease(
                leases,
                kind,
                name,
                fencingToken,
                leaseTime,
                renewedByWatchdog,
                Math.min(plannedEnd, keyDeadlineNanos),
                plannedEnd,
                grant,
                place,
                true);
    }

    /** Starts the deadline check and, when due, renewal; call once, right after construction. */
    void start() {
        synchronized (this.lock) {
            armDeadline();
            if (this.renewedByWatchdog || this.plannedEndNanos - this.deadlineNanos > 0) {
                // Once two thirds of a lease are left: a third of a lease after a fresh grant.
                scheduleTimer(Math.max(0, untilDeadline() - this.leaseTime.toNanos() * 2 / 3));
            }
        }
    }

    @Override
    public String name() {
        return this.name;
    }

    @Override
    public List<String> names() {
        return List.of(this.name);
    }

    @Override
    public long fencingToken() {
        return this.fencingToken;
    }

    @Override
    public Map<String, Long> fencingTokens() {
        return Map.of(this.name, this.fencingToken);
    }

    @Override
    public boolean isHeld() {
        return !this.ended && System.nanoTime() < this.deadlineNanos;
    }

    @Override
    public Duration remaining() {
        return isHeld() ? Duration.ofNanos(Math.max(0, untilDeadline())) : Duration.ZERO;
    }

    @Override
    public void extend(Duration newLeaseTime) {
        Duration extension = Arguments.requireLease(newLeaseTime, "leaseTime");
        boolean held;
        @Nullable Thread outer = null;
        synchronized (this.lock) {
            awaitNoCallInFlight();
            held = isHeld();
            if (held) {
                outer = this.renewer;
                this.renewer = Thread.currentThread();
            }
        }
        if (!held) {
            markLost(deadlineReason());
            throw lostException(endedByOwner() ? "it was released" : "its lease ran out");
        }
        try {
            long sent = System.nanoTime();
            Grant.Renewal outcome;
            try {
                outcome = this.grant.renew(extension);
            } catch (TurnstileException e) {
                // The new time to live may have reached Redis (or some masters) although the call
                // failed: never claim more than the shorter of the old and the new deadline.
                capDeadline(sent, extension);
                throw e;
            }
            if (outcome != Grant.Renewal.RENEWED) {
                Reason reason = lossReason(outcome);
                markLost(reason);
                throw lostException(
                        switch (reason) {
                            case TAKEN_OVER -> "another owner holds it";
                            case EXPIRED_IN_REDIS -> "it expired in Redis";
                            default -> "it was " + reason.description();
                        });
            }
            if (!applyRenewal(sent, extension, true)) {
                if (endedByOwner()) {
                    // Released meanwhile: the release decides what Redis keeps.
                    throw lostException("it was released while the extension was in flight");
                }
                // The deadline passed while the extension was in flight: the lease was (or is now)
                // reported lost, and stays lost; the caller must not believe it was extended, and
                // the grant it just renewed is freed rather than left to block others.
                markLost(deadlineReason());
                freeIfNotReleased();
                throw lostException("its lease ran out before the extension was confirmed");
            }
        } finally {
            endRenewal(outer);
        }
    }

    @Override
    public boolean release() {
        return end(Duration.ZERO);
    }

    @Override
    public boolean releaseAfter(Duration holdAtLeast) {
        Arguments.requireNonNegative(holdAtLeast, "holdAtLeast");
        return end(holdAtLeast);
    }

    private boolean end(Duration holdAtLeast) {
        Thread current = Thread.currentThread();
        boolean quiet;
        @Nullable Thread outer;
        synchronized (this.lock) {
            awaitCallsDone(false);
            if (this.releasedInRedis) {
                return false;
            }
            if (!holdAtLeast.isZero()) {
                awaitNoCallInFlight();
            }
            quiet = this.renewer == null || this.renewer == current;
            outer = this.releaser;
            this.releaser = current;
        }
        try {
            return endInRedis(holdAtLeast, quiet);
        } finally {
            synchronized (this.lock) {
                this.releaser = outer;
                this.lock.notifyAll();
            }
        }
    }

    /**
     * The owner's release, with no other release in flight.
     *
     * @param quiet whether no renewal is in flight: only then may the grant be passed on
     */
    private boolean endInRedis(Duration holdAtLeast, boolean quiet) {
        if (!this.ended && untilDeadline() <= 0) {
            // Past the deadline: report the loss before anything else, whatever the deadline
            // thread has managed so far.
            markLost(deadlineReason());
        }
        boolean lost;
        boolean retry;
        synchronized (this.lock) {
            lost = this.lostEvent != null;
            // A release that failed before already left this lease's local place: a retry only
            // frees the grant in Redis, it never passes it on.
            retry = this.leftPlace;
            this.ended = true;
            cancelTimers();
            if (lost) {
                this.releasedInRedis = true;
            }
        }
        if (lost) {
            // Reported already, and never held on: the answer tells the caller, and what may be left
            // of the grant is freed (owner-checked) off the caller's thread, so a release during a
            // partition or a Redis stall never blocks the caller or fails.
            leavePlace(-1);
            this.leases.watchdog().execute(this::freeQuietly);
            return false;
        }
        long result;
        boolean passedOn = false;
        try {
            if (!holdAtLeast.isZero()) {
                result = this.grant.releaseAfter(holdAtLeast);
            } else if (quiet
                    && !retry
                    && this.place.passOn(this.deadlineNanos, this.leaseTime.toNanos(), this::reportLostAfterPass)) {
                passedOn = true;
                result = 0;
            } else {
                result = this.grant.release();
            }
        } catch (TurnstileException e) {
            leavePlace(-1);
            throw e;
        }
        if (log.isDebugEnabled()) {
            log.debug(
                    "Released {} '{}' (fencing token {}): {}",
                    this.kind.label(),
                    this.name,
                    this.fencingToken,
                    result < 0
                            ? "no longer held"
                            : passedOn
                                    ? "passed on locally"
                                    : holdAtLeast.isZero()
                                            ? "freed"
                                            : "kept for at least " + Durations.format(holdAtLeast)
                                                    + " after its grant");
        }
        synchronized (this.lock) {
            this.releasedInRedis = true;
            if (passedOn) {
                this.leftPlace = true; // the place is the next holder's now
            }
        }
        if (!passedOn) {
            tellPlace(result >= 0);
        }
        leavePlace(result);
        if (result < 0 && !retry) {
            // The grant was no longer this owner's (force-released, or expired in Redis before the
            // local deadline): the work ran without it for a while, and that is never silent.
            reportLostAtRelease(result == Grant.FORCED_FROM_OWNER ? Reason.FORCE_RELEASED : Reason.EXPIRED_IN_REDIS);
        }
        return result >= 0;
    }

    /**
     * Tells the local place what a call to Redis found. A grant found gone only after this lease's
     * deadline may simply have expired, which says nothing of the holders before: then nothing.
     */
    private void tellPlace(boolean held) {
        if (held || untilDeadline() > 0) {
            this.place.redisAnswered(held);
        }
    }

    /** Reports, once, the loss of a lease whose release found its grant no longer this owner's. */
    private void reportLostAtRelease(Reason reason) {
        reportLostAfterEnd(reason, "found at its release");
    }

    /**
     * Reports, once, the loss of a lease that passed its grant on without asking Redis, when a
     * later holder's call found the grant gone from Redis before any call found it there.
     */
    private void reportLostAfterPass() {
        reportLostAfterEnd(Reason.EXPIRED_IN_REDIS, "found after it was passed on, by a later holder of the grant");
    }

    private void reportLostAfterEnd(Reason reason, String found) {
        LeaseLostEvent event;
        List<LeaseListener> toNotify;
        synchronized (this.lock) {
            if (this.lostEvent != null) {
                return;
            }
            event = new LeaseLostEvent(
                    this.kind, this.name, this.fencingToken, reason, Duration.ofNanos(Math.max(0, -untilDeadline())));
            this.lostEvent = event;
            toNotify = this.listeners == null ? List.of() : List.copyOf(this.listeners);
            this.listeners = null;
        }
        lossLog.warn(
                "Lost {} '{}' (fencing token {}): {} ({}), {}: it was no longer this owner's in"
                        + " Redis, so the work it guarded may not have been exclusive",
                this.kind.label(),
                this.name,
                this.fencingToken,
                event.reason().description(),
                event.reason(),
                found);
        this.leases.publishLoss(event);
        toNotify.forEach(listener -> Leases.notifySafely(listener, event));
    }

    /** Releases like {@link #release()}, but logs instead of throwing when Redis is unreachable. */
    @Override
    public void close() {
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
    public void onLost(LeaseListener listener) {
        LeaseLostEvent event;
        synchronized (this.lock) {
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

    /**
     * Marks the lease lost, if it was still held and not released (and, for a deadline, the
     * deadline has passed), and tells every listener. Call without the lock.
     */
    private void markLost(Reason reason) {
        LeaseLostEvent event;
        List<LeaseListener> toNotify;
        synchronized (this.lock) {
            boolean byDeadline = reason == Reason.RENEWAL_MISSED || reason == Reason.LEASE_ELAPSED;
            if (this.ended || (byDeadline && untilDeadline() > 0)) {
                // Released, already lost, or renewed in time after all (the deadline moved).
                return;
            }
            this.ended = true;
            cancelTimers();
            Duration overdue = Duration.ofNanos(Math.max(0, -untilDeadline()));
            event = new LeaseLostEvent(this.kind, this.name, this.fencingToken, reason, overdue);
            this.lostEvent = event;
            toNotify = this.listeners == null ? List.of() : List.copyOf(this.listeners);
            this.listeners = null;
        }
        lossLog.warn(
                "Lost {} '{}' (fencing token {}): {} ({}), detected {}",
                this.kind.label(),
                this.name,
                this.fencingToken,
                reason.description(),
                reason,
                event.overdue().isZero()
                        ? "before its deadline"
                        : Durations.format(event.overdue()) + " after its deadline");
        if (this.freeOnLoss) {
            // Its key may live longer than its own lease: free it, so others wait no longer.
            this.leases.watchdog().execute(this::freeQuietly);
        }
        leavePlace(-1);
        this.leases.publishLoss(event);
        toNotify.forEach(listener -> Leases.notifySafely(listener, event));
    }

    private Reason deadlineReason() {
        return this.renewedByWatchdog ? Reason.RENEWAL_MISSED : Reason.LEASE_ELAPSED;
    }

    private static Reason lossReason(Grant.Renewal outcome) {
        return switch (outcome) {
            case GONE, RENEWED -> Reason.EXPIRED_IN_REDIS;
            case TAKEN_OVER -> Reason.TAKEN_OVER;
            case FORCE_RELEASED -> Reason.FORCE_RELEASED;
        };
    }

    private LockLostException lostException(String why) {
        LeaseLostEvent event;
        synchronized (this.lock) {
            event = this.lostEvent;
        }
        return LockLostException.of(this.kind, this.name, event == null ? null : event.reason(), why);
    }

    /** The deadline check, on the deadline thread: local state only, never Redis. */
    private void onDeadline() {
        if (this.ended) {
            return;
        }
        if (untilDeadline() <= 0) {
            markLost(deadlineReason());
        } else {
            synchronized (this.lock) {
                armDeadline();
            }
        }
    }

    /** The renewal chain, on an I/O thread. */
    private void onTimer() {
        try {
            if (!this.ended) {
                renew();
            }
        } catch (RuntimeException e) {
            // Never let the renewal chain die silently: retry, and the deadline still applies.
            log.error("Unexpected failure renewing {} '{}'", this.kind.label(), this.name, e);
            synchronized (this.lock) {
                scheduleTimer(retryDelay());
            }
        }
    }

    private void renew() {
        Duration renewal = this.leaseTime;
        long sent = System.nanoTime();
        boolean due;
        @Nullable Thread outer = null;
        synchronized (this.lock) {
            awaitNoCallInFlight();
            if (this.ended) {
                return;
            }
            sent = System.nanoTime();
            due = this.deadlineNanos - sent > 0;
            if (due) {
                renewal = this.leaseTime;
                if (!this.renewedByWatchdog) {
                    // A top-up of a fixed lease: up to its planned end, never beyond.
                    long toEnd = TimeUnit.NANOSECONDS.toMillis(this.plannedEndNanos - sent);
                    if (this.plannedEndNanos - this.deadlineNanos <= 0 || toEnd <= 0) {
                        return;
                    }
                    renewal = Duration.ofMillis(toEnd);
                }
                outer = this.renewer;
                this.renewer = Thread.currentThread();
            }
        }
        if (!due) {
            markLost(deadlineReason());
            return;
        }
        try {
            Grant.Renewal outcome;
            try {
                outcome = this.grant.renew(renewal);
            } catch (TurnstileException e) {
                log.debug(
                        "Could not renew {} '{}' ({}); retrying before its deadline",
                        this.kind.label(),
                        this.name,
                        e.getMessage());
                synchronized (this.lock) {
                    scheduleTimer(retryDelay());
                }
                return;
            }
            switch (outcome) {
                case RENEWED -> {
                    tellPlace(true);
                    if (applyRenewal(sent, renewal, false)) {
                        this.leases.publishRenewal(this.kind, this.name);
                    } else if (!endedByOwner()) {
                        markLost(deadlineReason());
                        freeIfNotReleased();
                    }
                    // Ended by its owner meanwhile: the release (or hold, or hand-off) decides what
                    // Redis keeps; this renewal must not free it.
                }
                case GONE, TAKEN_OVER, FORCE_RELEASED -> {
                    tellPlace(false);
                    markLost(lossReason(outcome));
                }
            }
        } finally {
            endRenewal(outer);
        }
    }

    /** Waits until no other thread's renewal, extension or release is in flight. Call under the lock. */
    private void awaitNoCallInFlight() {
        awaitCallsDone(true);
    }

    /**
     * Waits until no other thread's release (and, with {@code renewalsToo}, renewal or extension)
     * is in flight. Call under the lock; an interrupt is kept for the caller, not acted on.
     */
    private void awaitCallsDone(boolean renewalsToo) {
        Thread current = Thread.currentThread();
        boolean interrupted = false;
        while ((renewalsToo && this.renewer != null && this.renewer != current)
                || (this.releaser != null && this.releaser != current)) {
            try {
                this.lock.wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            current.interrupt();
        }
    }

    /** Ends this thread's renewal or extension; {@code outer} is the one it ran inside, if any. */
    private void endRenewal(@Nullable Thread outer) {
        synchronized (this.lock) {
            this.renewer = outer;
            this.lock.notifyAll();
        }
    }

    /** Whether the lease ended by its owner's release (not by loss). */
    private boolean endedByOwner() {
        synchronized (this.lock) {
            return this.ended && this.lostEvent == null;
        }
    }

    /** The deadline after a renewal or extension for {@code lease} sent at {@code sentNanos} succeeded. */
    private long deadlineAfterRenewal(long sentNanos, Duration lease) {
        return sentNanos + lease.toNanos() - this.grant.driftNanos(lease);
    }

    /** Lowers the deadline to what a renewal sent at {@code sentNanos} for {@code lease} allows, if that is earlier. */
    private void capDeadline(long sentNanos, Duration lease) {
        synchronized (this.lock) {
            long capped = deadlineAfterRenewal(sentNanos, lease);
            if (!this.ended && capped - this.deadlineNanos < 0) {
                this.deadlineNanos = capped;
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
    private boolean applyRenewal(long sentNanos, Duration renewal, boolean extension) {
        synchronized (this.lock) {
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

    /**
     * Frees, owner-checked and best effort, a grant that a renewal refreshed in Redis after the
     * lease had already been reported lost, so it does not block others for a whole lease.
     */
    private void freeIfNotReleased() {
        boolean released;
        synchronized (this.lock) {
            released = this.releasedInRedis;
        }
        if (!released) {
            freeQuietly();
        }
    }

    /** Frees, owner-checked and best effort, what may be left of a lost lease's grant. */
    private void freeQuietly() {
        try {
            this.grant.release();
        } catch (RuntimeException e) {
            log.debug(
                    "Could not free lost {} '{}': {}; it expires by its TTL",
                    this.kind.label(),
                    this.name,
                    e.getMessage());
        }
    }

    /** Leaves the local place once (unless the grant was passed on with it). Call without the lock. */
    private void leavePlace(long waitersElsewhere) {
        synchronized (this.lock) {
            if (this.leftPlace) {
                return;
            }
            this.leftPlace = true;
        }
        this.place.leave(waitersElsewhere);
    }

    private long retryDelay() {
        long tenth = this.leaseTime.toNanos() / 10;
        return Math.min(Math.max(MIN_RETRY_NANOS, Math.min(tenth, MAX_RETRY_NANOS)), Math.max(0, untilDeadline()));
    }

    private long untilDeadline() {
        return this.deadlineNanos - System.nanoTime();
    }

    /** Replaces the pending renewal (there is only ever one chain per lease). Call under the lock. */
    private void scheduleTimer(long delayNanos) {
        if (this.timer != null) {
            this.timer.cancel(false);
        }
        if (!this.ended) {
            this.timer = this.leases.watchdog().schedule(this::onTimer, delayNanos);
        }
    }

    /** Replaces the pending deadline check with one at the current deadline. Call under the lock. */
    private void armDeadline() {
        if (this.deadlineTimer != null) {
            this.deadlineTimer.cancel(false);
        }
        if (!this.ended) {
            this.deadlineTimer = this.leases.watchdog().scheduleDeadline(this::onDeadline, untilDeadline());
        }
    }

    /** Cancels the renewal chain and the deadline check. Call under the lock. */
    private void cancelTimers() {
        if (this.timer != null) {
            this.timer.cancel(false);
            this.timer = null;
        }
        if (this.deadlineTimer != null) {
            this.deadlineTimer.cancel(false);
            this.deadlineTimer = null;
        }
    }
}
