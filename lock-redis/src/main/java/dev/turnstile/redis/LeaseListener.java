package dev.turnstile.redis;

/**
 * Hears that a lease was lost while its owner still thought it held: the lease's time ran out, it
 * was found gone or taken over in Redis, or Redis stayed unreachable past its deadline.
 *
 * <p>Register one on a {@link Lease} or, for every lease, on {@link Turnstile.Builder#listener}.
 * Called once per lost lease, on the watchdog thread or the thread that found the loss; it must be
 * quick and must not block.
 */
@FunctionalInterface
public interface LeaseListener {

    /** Called once when {@code event}'s lease is lost. */
    void leaseLost(LeaseLostEvent event);

    /**
     * Called each time the watchdog renewed a lease of {@code kind} named {@code name}; for
     * metrics. Does nothing by default.
     */
    default void leaseRenewed(LeaseKind kind, String name) {}
}
