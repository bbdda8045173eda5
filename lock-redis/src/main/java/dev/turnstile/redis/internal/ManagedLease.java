package dev.turnstile.redis.internal;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LeaseListener;
import dev.turnstile.redis.LeaseLostEvent.Reason;
import dev.turnstile.redis.TurnstileException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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

    private static final Logger log = LoggerFactory.getLogger(ManagedLease.class);

    private final LeaseId id;
    private final LeaseState state;
    private final LeaseRelease release;

    private ManagedLease(
            Leases leases, LeaseId id, LeaseClock clock, Grant grant, LocalPlace place, boolean freeOnLoss) {
        this.id = id;
        this.state = new LeaseState(leases, id, clock, grant, place, freeOnLoss, LeaseRenewal::new);
        this.release = new LeaseRelease(this.state);
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
            LeaseTerms terms,
            long sentNanos,
            Grant grant,
            LocalPlace place) {
        LeaseClock clock = LeaseClock.granted(terms, sentNanos);
        return new ManagedLease(leases, new LeaseId(kind, name, fencingToken), clock, grant, place, false);
    }

    /**
     * A lease on a lock grant passed on by the previous local holder: held until its own lease ends,
     * but no longer than the key is known to live ({@code handOff}'s key deadline); a watchdog lease
     * renews and a fixed one is topped up before that. When lost, what may be left of the grant is
     * freed, as the key may outlive this lease.
     */
    static ManagedLease passedOn(
            Leases leases, String name, HandOff handOff, LeaseTerms terms, Grant grant, LocalPlace place) {
        return passedOn(
                leases,
                LeaseKind.LOCK,
                name,
                handOff.fencingToken(),
                handOff.keyDeadlineNanos(),
                handOff.handedNanos(),
                terms,
                grant,
                place);
    }

    /**
     * A lease on a grant passed on by the previous local holder of the same grant (a lock's, or a
     * semaphore permit's): as {@link #passedOn(Leases, String, HandOff, LeaseTerms, Grant,
     * LocalPlace)}, with the key's deadline and the hand-off's time given.
     */
    static ManagedLease passedOn(
            Leases leases,
            LeaseKind kind,
            String name,
            long fencingToken,
            long keyDeadlineNanos,
            long handedNanos,
            LeaseTerms terms,
            Grant grant,
            LocalPlace place) {
        LeaseClock clock = LeaseClock.passedOn(terms, handedNanos, keyDeadlineNanos);
        return new ManagedLease(leases, new LeaseId(kind, name, fencingToken), clock, grant, place, true);
    }

    /** Starts the deadline check and, when due, renewal; call once, right after construction. */
    void start() {
        this.state.start();
    }

    @Override
    public String name() {
        return this.id.name();
    }

    @Override
    public List<String> names() {
        return List.of(this.id.name());
    }

    @Override
    public long fencingToken() {
        return this.id.fencingToken();
    }

    @Override
    public Map<String, Long> fencingTokens() {
        return Map.of(this.id.name(), this.id.fencingToken());
    }

    @Override
    public boolean isHeld() {
        return this.state.isHeld();
    }

    @Override
    public Duration remaining() {
        return isHeld() ? Duration.ofNanos(Math.max(0, this.state.clock().untilDeadline())) : Duration.ZERO;
    }

    @Override
    public void extend(Duration newLeaseTime) {
        Duration extension = Arguments.requireLease(newLeaseTime, "leaseTime");
        LeaseCalls lock = this.state.lock();
        boolean held;
        @Nullable Thread outer = null;
        synchronized (lock) {
            lock.awaitDone(true);
            held = isHeld();
            if (held) {
                outer = lock.renewal.begin();
            }
        }
        if (!held) {
            this.state.markLost(this.state.deadlineReason());
            throw this.state.lostException(this.state.endedByOwner() ? "it was released" : "its lease ran out");
        }
        try {
            extendInRedis(extension);
        } finally {
            lock.renewal.end(outer);
        }
    }

    private void extendInRedis(Duration extension) {
        long sent = System.nanoTime();
        Grant.Renewal outcome;
        try {
            outcome = this.state.grant().renew(extension);
        } catch (TurnstileException e) {
            // The new time to live may have reached Redis (or some masters) although the call
            // failed: never claim more than the shorter of the old and the new deadline.
            this.state.capDeadline(sent, extension);
            throw e;
        }
        if (outcome != Grant.Renewal.RENEWED) {
            Reason reason = LeaseLoss.reasonOf(outcome);
            this.state.markLost(reason);
            throw this.state.lostException(
                    switch (reason) {
                        case TAKEN_OVER -> "another owner holds it";
                        case EXPIRED_IN_REDIS -> "it expired in Redis";
                        default -> "it was " + reason.description();
                    });
        }
        if (!this.state.applyRenewal(sent, extension, true)) {
            if (this.state.endedByOwner()) {
                // Released meanwhile: the release decides what Redis keeps.
                throw this.state.lostException("it was released while the extension was in flight");
            }
            // The deadline passed while the extension was in flight: the lease was (or is now)
            // reported lost, and stays lost; the caller must not believe it was extended, and
            // the grant it just renewed is freed rather than left to block others.
            this.state.markLost(this.state.deadlineReason());
            this.state.freeIfNotReleased();
            throw this.state.lostException("its lease ran out before the extension was confirmed");
        }
    }

    @Override
    public boolean release() {
        return this.release.release(Duration.ZERO);
    }

    @Override
    public boolean releaseAfter(Duration holdAtLeast) {
        Arguments.requireNonNegative(holdAtLeast, "holdAtLeast");
        return this.release.release(holdAtLeast);
    }

    /** Releases like {@link #release()}, but logs instead of throwing when Redis is unreachable. */
    @Override
    public void close() {
        try {
            release();
        } catch (TurnstileException e) {
            log.warn(
                    "Could not release {} '{}': {}. It expires in Redis within its lease of {}.",
                    this.id.label(),
                    this.id.name(),
                    e.getMessage(),
                    Durations.format(this.state.clock().leaseTime()));
        }
    }

    @Override
    public void onLost(LeaseListener listener) {
        this.state.onLost(listener);
    }

    @Override
    public String toString() {
        return this.id.label() + " lease '" + this.id.name() + "' (fencing token " + this.id.fencingToken() + ", "
                + (isHeld() ? "held" : "not held") + ")";
    }
}
