package dev.turnstile.redis.internal;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.NamedLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A lock on one name or on several names at once, on one Redis deployment or on a Redlock's
 * masters: what goes name by name is the same everywhere, and only one name's acquire, read and
 * forced release differ. Several names are taken within one wait, in sorted order, all or nothing:
 * the names taken are released (in reverse order) when a later one cannot be taken or the attempt
 * fails.
 */
abstract class AllOrNothingLock implements NamedLock {

    private final Deployment deployment;
    private final List<String> names;

    /**
     * @param names one name, or distinct and sorted
     */
    AllOrNothingLock(Deployment deployment, List<String> names) {
        this.deployment = deployment;
        this.names = names;
    }

    @Override
    public final List<String> names() {
        return this.names;
    }

    /**
     * Checks the arguments, decides the lease's terms once, refuses on a closed instance, then
     * takes every name within {@code wait} ({@link #acquireOne}).
     */
    @Override
    public final Optional<Lease> tryAcquire(Duration wait, @Nullable Duration leaseTime) {
        Arguments.requireNonNegative(wait, "wait");
        LeaseTerms terms = LeaseTerms.of(leaseTime, this.deployment.options());
        this.deployment.leases().requireOpen();
        long start = System.nanoTime();
        return acquire(this.names, start, start + wait.toNanos(), terms);
    }

    /** Whether any name is locked ({@link #isLocked(String)}). */
    @Override
    public final boolean isLocked() {
        return this.names.stream().anyMatch(this::isLocked);
    }

    /** Releases every name, whoever holds it ({@link #forceRelease(String)}). */
    @Override
    public final List<String> forceRelease() {
        return this.names.stream().filter(this::forceRelease).toList();
    }

    /** Takes one name on {@code terms}, waiting until the shared deadline. */
    abstract Optional<Lease> acquireOne(String name, long startNanos, long deadlineNanos, LeaseTerms terms);

    /** Whether {@code name} is locked right now. */
    abstract boolean isLocked(String name);

    /** Releases {@code name} whoever holds it; true when it was held. */
    abstract boolean forceRelease(String name);

    /**
     * @param names the names, sorted
     * @return one lease over every name (the name's own lease when there is one), or empty
     */
    private Optional<Lease> acquire(List<String> names, long startNanos, long deadlineNanos, LeaseTerms terms) {
        if (names.size() == 1) {
            return acquireOne(names.get(0), startNanos, deadlineNanos, terms);
        }
        while (true) {
            List<Lease> taken = new ArrayList<>(names.size());
            try {
                for (String name : names) {
                    Optional<Lease> lease = acquireOne(name, startNanos, deadlineNanos, terms);
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
