package dev.turnstile.redis;

import org.jspecify.annotations.Nullable;

/**
 * An owner-checked operation (extend) found that the lease is no longer held: it expired, was
 * taken over by another owner after expiring, was released by an operator, or was released.
 */
public final class LockLostException extends TurnstileException {

    private static final long serialVersionUID = 1L;

    private final LeaseKind kind;
    private final String name;
    private final LeaseLostEvent.@Nullable Reason reason;
    private final boolean rolledBack;

    private LockLostException(
            LeaseKind kind, String name, LeaseLostEvent.@Nullable Reason reason, String why, boolean rolledBack) {
        super(
                "The " + kind.label() + " '" + name + "' is no longer held by this owner: " + why
                        + (rolledBack
                                ? "; the transaction was rolled back, so nothing it changed took effect."
                                : ". Work done under it may overlap with the next owner's; use a longer lease,"
                                        + " let the watchdog renew it, or check fencing tokens where you write."),
                null);
        this.kind = kind;
        this.name = name;
        this.reason = reason;
        this.rolledBack = rolledBack;
    }

    /** The lease on {@code name} is gone; {@code why} says how, e.g. "it expired in Redis". */
    public static LockLostException of(LeaseKind kind, String name, String why) {
        return of(kind, name, null, why);
    }

    /**
     * The lease on {@code name} is gone for {@code reason} (null when not known); {@code why} says
     * how, e.g. "it was released by an operator".
     */
    public static LockLostException of(
            LeaseKind kind, String name, LeaseLostEvent.@Nullable Reason reason, String why) {
        return new LockLostException(kind, name, reason, why, false);
    }

    /**
     * The lease on {@code name} was found gone before the work done under it was committed, and the
     * work was rolled back for it (a transaction refused at its commit): nothing it changed took
     * effect.
     */
    public static LockLostException rolledBack(
            LeaseKind kind, String name, LeaseLostEvent.@Nullable Reason reason, String why) {
        return new LockLostException(kind, name, reason, why, true);
    }

    /** Returns what was lost: a lock or a semaphore permit. */
    public LeaseKind kind() {
        return this.kind;
    }

    /** Returns the lock or semaphore name. */
    public String name() {
        return this.name;
    }

    /** Returns how the lease was lost, or null when that is not known. */
    public LeaseLostEvent.@Nullable Reason reason() {
        return this.reason;
    }

    /**
     * Returns whether the work done under the lease was rolled back because of the loss ({@link
     * #rolledBack}), so that none of it took effect; false when it may have taken effect without
     * being exclusive.
     */
    public boolean isRolledBack() {
        return this.rolledBack;
    }
}
