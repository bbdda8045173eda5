package dev.turnstile.redis;

/**
 * An owner-checked operation (extend) found that the lease is no longer held: it expired, was
 * taken over by another owner after expiring, or was released.
 */
public final class LockLostException extends TurnstileException {

    private static final long serialVersionUID = 1L;

    private final String kind;
    private final String name;

    private LockLostException(String message, String kind, String name) {
        super(message, null);
        this.kind = kind;
        this.name = name;
    }

    /** The lease on {@code name} is gone; {@code why} says how, e.g. "it expired in Redis". */
    public static LockLostException of(String kind, String name, String why) {
        return new LockLostException(
                "The " + kind + " '" + name + "' is no longer held by this owner: " + why
                        + ". Work done under it may overlap with the next owner's; use a longer lease,"
                        + " let the watchdog renew it, or check fencing tokens where you write.",
                kind,
                name);
    }

    /**
     * Returns what was lost, as given to {@link #of}: {@code "lock"} or {@code "semaphore"} for the
     * leases Turnstile hands out.
     */
    public String kind() {
        return this.kind;
    }

    /** Returns the lock or semaphore name. */
    public String name() {
        return this.name;
    }
}
