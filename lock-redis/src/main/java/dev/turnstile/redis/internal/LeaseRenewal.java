package dev.turnstile.redis.internal;

import dev.turnstile.redis.TurnstileException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The renewal chain of one {@link ManagedLease}, run by the watchdog on an I/O thread: a watchdog
 * lease is renewed for its lease time at a third of it, a fixed lease passed on from another holder
 * is topped up to its planned end. A renewal that Redis could not confirm is retried before the
 * deadline; one that finds the grant gone or taken marks the lease lost. No renewal runs while a
 * release or another renewal (or extension) is in flight.
 */
final class LeaseRenewal implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(ManagedLease.class);

    private final LeaseState state;

    LeaseRenewal(LeaseState state) {
        this.state = state;
    }

    /** One step of the chain: never lets it die silently (it retries; the deadline still applies). */
    @Override
    public void run() {
        try {
            if (!this.state.phase().ended()) {
                renew();
            }
        } catch (RuntimeException e) {
            log.error(
                    "Unexpected failure renewing {} '{}'",
                    this.state.id().label(),
                    this.state.id().name(),
                    e);
            synchronized (this.state.lock()) {
                this.state.retryRenewal();
            }
        }
    }

    private void renew() {
        LeaseCalls lock = this.state.lock();
        @Nullable Duration renewal = null;
        long sent;
        boolean due;
        @Nullable Thread outer = null;
        synchronized (lock) {
            lock.awaitDone(true);
            if (this.state.phase().ended()) {
                return;
            }
            sent = System.nanoTime();
            due = this.state.clock().deadlineNanos() - sent > 0;
            if (due) {
                // A watchdog lease's time, or a fixed lease's top-up (none due: nothing to do).
                renewal = this.state.clock().renewal(sent);
                if (renewal == null) {
                    return;
                }
                outer = lock.renewal.begin();
            }
        }
        if (renewal == null) {
            this.state.markLost(this.state.deadlineReason());
            return;
        }
        try {
            renewInRedis(sent, renewal);
        } finally {
            lock.renewal.end(outer);
        }
    }

    private void renewInRedis(long sent, Duration renewal) {
        Grant.Renewal outcome;
        try {
            outcome = this.state.grant().renew(renewal);
        } catch (TurnstileException e) {
            log.debug(
                    "Could not renew {} '{}' ({}); retrying before its deadline",
                    this.state.id().label(),
                    this.state.id().name(),
                    e.getMessage());
            synchronized (this.state.lock()) {
                this.state.retryRenewal();
            }
            return;
        }
        switch (outcome) {
            case RENEWED -> {
                this.state.tellPlace(true);
                if (this.state.applyRenewal(sent, renewal, false)) {
                    this.state
                            .leases()
                            .publishRenewal(
                                    this.state.id().kind(), this.state.id().name());
                } else if (!this.state.endedByOwner()) {
                    this.state.markLost(this.state.deadlineReason());
                    this.state.freeIfNotReleased();
                }
                // Ended by its owner meanwhile: the release (or hold, or hand-off) decides what
                // Redis keeps; this renewal must not free it.
            }
            case GONE, TAKEN_OVER, FORCE_RELEASED -> {
                this.state.tellPlace(false);
                this.state.markLost(LeaseLoss.reasonOf(outcome));
            }
        }
    }
}
