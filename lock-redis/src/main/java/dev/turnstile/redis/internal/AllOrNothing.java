package dev.turnstile.redis.internal;

import dev.turnstile.redis.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Takes several names of one lock within one wait, in sorted order, all or nothing: the names
 * taken are released (in reverse order) when a later one cannot be taken or the attempt fails.
 * Shared by the one-deployment lock and Redlock.
 */
final class AllOrNothing {

    private AllOrNothing() {}

    /** Takes one name on {@code terms}, waiting until the shared deadline. */
    @FunctionalInterface
    interface OneName {

        Optional<Lease> acquire(String name, long startNanos, long deadlineNanos, LeaseTerms terms);
    }

    /**
     * A lock's {@code tryAcquire} on any deployment: checks the arguments, decides the lease's terms
     * once, refuses on a closed instance, then takes every name within {@code wait}.
     *
     * @param leaseTime the caller's lease, or null for the deployment's default, watchdog-renewed one
     * @throws IllegalArgumentException if {@code wait} is negative or {@code leaseTime} not positive
     * @throws IllegalStateException if the instance is closed
     */
    static Optional<Lease> tryAcquire(
            Deployment deployment, List<String> names, Duration wait, @Nullable Duration leaseTime, OneName one) {
        Arguments.requireNonNegative(wait, "wait");
        LeaseTerms terms = LeaseTerms.of(leaseTime, deployment.options());
        deployment.leases().requireOpen();
        long start = System.nanoTime();
        return acquire(names, start, start + wait.toNanos(), terms, one);
    }

    /**
     * @param names the names, sorted
     * @return one lease over every name (the name's own lease when there is one), or empty
     */
    private static Optional<Lease> acquire(
            List<String> names, long startNanos, long deadlineNanos, LeaseTerms terms, OneName one) {
        if (names.size() == 1) {
            return one.acquire(names.get(0), startNanos, deadlineNanos, terms);
        }
        while (true) {
            List<Lease> taken = new ArrayList<>(names.size());
            try {
                for (String name : names) {
                    Optional<Lease> lease = one.acquire(name, startNanos, deadlineNanos, terms);
                    if (lease.isEmpty()) {
                        releaseAll(taken);
                        return Optional.empty();
                    }
                    taken.add(lease.get());
                }
            } catch (RuntimeException e) {
                releaseAll(taken);
                throw e;
            }
            // A name taken first may have been lost while a later one was waited for: never hand out
            // a lease that is not held on every name. Start again while the wait lasts.
            if (taken.stream().allMatch(Lease::isHeld)) {
                return Optional.of(new MultiLease(taken));
            }
            releaseAll(taken);
            if (deadlineNanos - System.nanoTime() <= 0) {
                return Optional.empty();
            }
        }
    }

    private static void releaseAll(List<Lease> taken) {
        for (int i = taken.size() - 1; i >= 0; i--) {
            taken.get(i).close();
        }
    }
}
