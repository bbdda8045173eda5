package dev.turnstile.redis.internal;

import dev.turnstile.redis.LeaseListener;
import dev.turnstile.redis.LeaseLostEvent;
import dev.turnstile.redis.LeaseLostEvent.Reason;
import dev.turnstile.redis.LockLostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loss of one {@link ManagedLease}, told exactly once: at WARN under {@link Leases#LOSS_LOGGER},
 * to the global listeners and to the lease's own. A loss is {@link #record recorded} under the
 * lease's lock and {@link Told told} after it, never while the lock is held.
 */
final class LeaseLoss {

    private static final Logger lossLog = LoggerFactory.getLogger(Leases.LOSS_LOGGER);

    private final Leases leases;
    private final LeaseId id;
    /** The recorded loss (under the lease's lock). */
    private @Nullable LeaseLostEvent event;
    /** The lease's own listeners, created with the first (most leases have none). */
    private @Nullable List<LeaseListener> listeners;

    LeaseLoss(Leases leases, LeaseId id) {
        this.leases = leases;
        this.id = id;
    }

    /** What the owner's Redis call found, as a loss. */
    static Reason reasonOf(Grant.Renewal outcome) {
        return switch (outcome) {
            case GONE, RENEWED -> Reason.EXPIRED_IN_REDIS;
            case TAKEN_OVER -> Reason.TAKEN_OVER;
            case FORCE_RELEASED -> Reason.FORCE_RELEASED;
        };
    }

    /** The recorded loss, or null. Call under the lease's lock. */
    @Nullable
    LeaseLostEvent event() {
        return this.event;
    }

    /**
     * Keeps {@code listener} for the loss, if none was recorded yet. Call under the lease's lock.
     *
     * @return the loss already recorded, to tell {@code listener} of at once (after the lock), or
     *     null when it was kept
     */
    @Nullable
    LeaseLostEvent listen(LeaseListener listener) {
        if (this.event == null) {
            if (this.listeners == null) {
                this.listeners = new ArrayList<>(2);
            }
            this.listeners.add(listener);
        }
        return this.event;
    }

    /**
     * Records the loss, unless one was recorded already. Call under the lease's lock.
     *
     * @param overdue how long past the lease's deadline it was found
     * @return what to tell once the lock is left, or null when a loss was recorded before
     */
    @Nullable
    Told record(Reason reason, Duration overdue) {
        if (this.event != null) {
            return null;
        }
        LeaseLostEvent lost =
                new LeaseLostEvent(this.id.kind(), this.id.name(), this.id.fencingToken(), reason, overdue);
        this.event = lost;
        List<LeaseListener> toNotify = this.listeners == null ? List.of() : List.copyOf(this.listeners);
        this.listeners = null;
        return new Told(lost, toNotify);
    }

    /** The exception for an owner's call on a lost or ended lease. Call under the lease's lock. */
    LockLostException exception(String why) {
        return LockLostException.of(
                this.id.label(), this.id.name(), this.event == null ? null : this.event.reason(), why);
    }

    /** A loss recorded and still to be told: logged first, then published. */
    final class Told {

        private final LeaseLostEvent event;
        private final List<LeaseListener> toNotify;

        private Told(LeaseLostEvent event, List<LeaseListener> toNotify) {
            this.event = event;
            this.toNotify = toNotify;
        }

        /** Logs a loss found while the lease was held (or at its deadline). */
        void logDetected() {
            lossLog.warn(
                    "Lost {} '{}' (fencing token {}): {} ({}), detected {}",
                    LeaseLoss.this.id.label(),
                    LeaseLoss.this.id.name(),
                    LeaseLoss.this.id.fencingToken(),
                    this.event.reason().description(),
                    this.event.reason(),
                    this.event.overdue().isZero()
                            ? "before its deadline"
                            : Durations.format(this.event.overdue()) + " after its deadline");
        }

        /** Logs a loss found after the lease ended ({@code found}: when and by whom). */
        void logFoundAfterEnd(String found) {
            lossLog.warn(
                    "Lost {} '{}' (fencing token {}): {} ({}), {}: it was no longer this owner's in"
                            + " Redis, so the work it guarded may not have been exclusive",
                    LeaseLoss.this.id.label(),
                    LeaseLoss.this.id.name(),
                    LeaseLoss.this.id.fencingToken(),
                    this.event.reason().description(),
                    this.event.reason(),
                    found);
        }

        /** Tells the global listeners, then the lease's own; a failing listener is logged, not rethrown. */
        void publish() {
            LeaseLoss.this.leases.publishLoss(this.event);
            this.toNotify.forEach(listener -> Leases.notifySafely(listener, this.event));
        }
    }
}
