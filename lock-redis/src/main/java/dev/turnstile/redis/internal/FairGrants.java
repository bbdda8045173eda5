package dev.turnstile.redis.internal;

import dev.turnstile.redis.LeaseKind;
import java.util.function.Function;

/**
 * The permits Redis grants a {@link FairPermitQueue}'s waiters, and those it gives back: one
 * granted or passed to a waiter that left meanwhile, or parked for a call that failed.
 */
record FairGrants(RedisDeployment deployment, String name, int limit) {

    /** The lease on the permit Redis granted {@code waiter}, with the token reserved when it arrived. */
    ManagedLease granted(
            FairWaiters.Waiter waiter, long sentNanos, long grantedAtMillis, Function<PermitCohort, LocalPlace> place) {
        PermitCohort cohort = new PermitCohort(
                waiter.id,
                this.deployment().options().cohortHolders(),
                this.deployment().options().cohortMaxAge().toNanos(),
                sentNanos,
                grantedAtMillis,
                (permitId, leaseNanos) -> null);
        return ManagedLease.granted(
                this.deployment().leases(),
                LeaseKind.SEMAPHORE,
                this.name(),
                waiter.token,
                waiter.terms,
                sentNanos,
                PermitGrant.fair(this.deployment(), this.name(), waiter.id, grantedAtMillis, this.limit()),
                place.apply(cohort));
    }

    /**
     * Gives back to Redis, which hands it to the head of the queue, a permit nobody here will hold:
     * one granted or passed to a waiter that left meanwhile ({@code outcome}), or parked.
     */
    void giveBack(String id, Object outcome) {
        if (outcome instanceof PermitQueue.PermitHandOff handOff) {
            giveBack(handOff.cohort(), handOff.keyDeadlineNanos());
        } else {
            release(id);
        }
    }

    /** Gives back {@code cohort}'s permit, whose lease lasts until {@code deadlineNanos}. */
    void giveBack(PermitCohort cohort, long deadlineNanos) {
        long released = release(cohort.permitId());
        if (released >= 0 || released == -1 && deadlineNanos - System.nanoTime() > 0) {
            cohort.redisAnswered(released >= 0);
        }
    }

    /** Releases permit {@code permitId} in Redis: -1 if it was not held, -2 if the call failed. */
    private long release(String permitId) {
        try {
            return PermitGrant.releaseFair(this.deployment(), this.name(), permitId, this.limit());
        } catch (RuntimeException e) {
            return -2; // the permit expires by its lease
        }
    }
}
