package dev.turnstile.redis.internal;

import dev.turnstile.redis.LeaseKind;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One semaphore's calls to Redis about its permits, fair or unfair: a try to acquire (which, for a
 * fair semaphore, takes or keeps the waiter's ticket in Redis's queue), the renewal that reserves
 * fresh tokens for a local pass, leaving the fair queue, and releasing a permit a call may have
 * granted; and the lease on each permit granted (by a call, or by a release of this process that
 * handed it to a fair waiter). Each call that can grant frees what it may have granted when it
 * fails; none retries.
 */
final class PermitCalls {

    /** How long a fair waiter keeps its place without calling again (it calls at least every 1.7 s). */
    static final Duration WAITER_TTL = Duration.ofSeconds(5);

    private final RedisDeployment deployment;
    private final PermitQueues queues;
    private final String name;
    private final int limit;
    private final boolean fair;

    /**
     * The calls of semaphore {@code name} with {@code limit} permits, fair or not; a fair one's
     * releases offer a freed permit to its waiters in {@code queues}.
     */
    PermitCalls(RedisDeployment deployment, PermitQueues queues, String name, int limit, boolean fair) {
        this.deployment = deployment;
        this.queues = queues;
        this.name = name;
        this.limit = limit;
        this.fair = fair;
    }

    /**
     * One try in Redis, on {@code terms}.
     *
     * @param staysQueued whether a fair waiter keeps its ticket when not granted (false: a try that
     *     does not wait leaves the queue in the script)
     * @param queue this process's queue of the semaphore, whose place the lease takes; null for a
     *     fair semaphore (no local queue, no local pass)
     */
    WaitLoop.Outcome<ManagedLease> attempt(
            String id, LeaseTerms terms, boolean staysQueued, @Nullable PermitQueue queue) {
        // Every grant that may pass on reserves tokens for the holders its permit may pass to (read
        // once: the script and the cohort must agree).
        int holders = queue == null ? 1 : this.deployment.options().cohortHolders();
        long sent = System.nanoTime();
        List<?> reply;
        try {
            // An interrupt is acted on after the call (by the wait that follows, or the lease's start).
            reply = (List<?>) Uninterrupted.call(
                    () -> this.fair ? runFair(id, terms, staysQueued, holders) : runUnfair(id, terms, holders));
        } catch (RuntimeException e) {
            // Unreachable, or a script that failed part-way: free what it may have granted.
            releaseQuietly(id);
            throw e;
        }
        long status = (Long) reply.get(0);
        long value = (Long) reply.get(1);
        if (status == 1) {
            long grantedAt = (Long) reply.get(2);
            LocalPlace place = LocalPlace.NONE;
            if (queue != null) {
                queue.offerTokens(sent, value, holders);
                place = queue.place(new PermitCohort(
                        id,
                        holders,
                        this.deployment.options().cohortMaxAge().toNanos(),
                        sent,
                        grantedAt,
                        (permitId, leaseNanos) -> reserveTokens(permitId, leaseNanos, holders)));
            }
            return WaitLoop.Outcome.granted(ManagedLease.granted(
                    this.deployment.leases(),
                    LeaseKind.SEMAPHORE,
                    this.name,
                    value,
                    terms,
                    sent,
                    this.fair ? fairGrant(id, grantedAt) : new PermitGrant(this.deployment, this.name, id, grantedAt),
                    place));
        }
        long hint = value > 0 ? TimeUnit.MILLISECONDS.toNanos(value) : 0;
        // A fair waiter sleeps through the signals of the waiters ahead leaving the queue, and wakes
        // at its own: the release that hands it a permit.
        return reply.size() > 2
                ? WaitLoop.Outcome.queued(hint, (Long) reply.get(2), WAITER_TTL.toNanos() / 3)
                : WaitLoop.Outcome.busy(hint);
    }

    /** Fair permit {@code id}, granted at the server's {@code grantedAtMillis}: its release hands it on. */
    private PermitGrant fairGrant(String id, long grantedAtMillis) {
        return PermitGrant.fair(this.deployment, this.name, id, grantedAtMillis, this.limit);
    }

    private Object runUnfair(String id, LeaseTerms terms, int holders) {
        return run(
                SemaphoreScripts.ACQUIRE,
                "acquire a permit of semaphore '" + this.name + "'",
                List.of(keys().semaphore(this.name), keys().semaphoreFence(this.name)),
                List.of(
                        id,
                        Integer.toString(this.limit),
                        terms.millis(),
                        this.deployment.options().fenceTtlMillis(terms.leaseTime()),
                        Integer.toString(holders)));
    }

    private Object runFair(String id, LeaseTerms terms, boolean staysQueued, int holders) {
        return run(
                SemaphoreScripts.ACQUIRE_FAIR,
                "acquire a permit of fair semaphore '" + this.name + "'",
                PermitGrant.fairKeys(keys(), this.name),
                PermitGrant.fairArgs(
                        this.deployment,
                        this.name,
                        id,
                        this.limit,
                        terms.millis(),
                        this.deployment.options().fenceTtlMillis(terms.leaseTime()),
                        Long.toString(WAITER_TTL.toMillis()),
                        staysQueued ? "1" : "0",
                        Integer.toString(holders)));
    }

    /** Runs an acquire script; with {@code minReplicas}, a grant must reach the replicas or is released. */
    private Object run(LuaScript script, String operation, List<String> keys, List<String> args) {
        return this.deployment
                .scripts()
                .evalGranting(
                        script,
                        operation,
                        keys,
                        args,
                        "A permit of semaphore '" + this.name + "'",
                        () -> releaseQuietly(args.get(0)));
    }

    /**
     * Renews permit {@code id} for {@code leaseNanos} and reserves {@code holders} fresh tokens for
     * the local holders it passes to; null if the permit is no longer held or, under {@code
     * minReplicas}, the tokens reached too few replicas (a failover could lose them). Part of a
     * release (the pass that follows it), so an interrupt does not cut it ({@link Uninterrupted}).
     */
    private PermitCohort.@Nullable Reserved reserveTokens(String id, long leaseNanos, int holders) {
        Duration lease = Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(leaseNanos));
        List<String> keys = List.of(keys().semaphore(this.name), keys().semaphoreFence(this.name));
        String operation = "renew a permit of semaphore '" + this.name + "'";
        List<String> args = List.of(
                id,
                Long.toString(lease.toMillis()),
                this.deployment.options().fenceTtlMillis(lease),
                Integer.toString(holders));
        long sent = System.nanoTime();
        List<?> reply;
        int minReplicas = this.deployment.options().minReplicas();
        if (minReplicas > 0) {
            // The reserved tokens must survive a failover, as a grant's do: else no pass.
            ScriptRunner.Replicated replicated = Uninterrupted.call(
                    () -> this.deployment.scripts().evalReplicated(SemaphoreScripts.RESERVE, operation, keys, args));
            reply = (List<?>) replicated.reply();
            if (replicated.replicas() < minReplicas) {
                return null; // the permit goes back to Redis instead of passing on with those tokens
            }
        } else {
            reply = (List<?>) Uninterrupted.call(
                    () -> this.deployment.scripts().eval(SemaphoreScripts.RESERVE, operation, keys, args));
        }
        if ((Long) reply.get(0) != 1) {
            return null;
        }
        return new PermitCohort.Reserved(sent, sent + lease.toNanos(), (Long) reply.get(1));
    }

    /**
     * A fair waiter that gives up leaves the queue; a permit handed to it meanwhile goes to the next
     * waiter, so none leaks.
     */
    void leaveQueue(String id, LeaseTerms terms) {
        try {
            Uninterrupted.run(() -> this.deployment
                    .scripts()
                    .eval(
                            SemaphoreScripts.LEAVE_QUEUE,
                            "leave the queue of semaphore '" + this.name + "'",
                            PermitGrant.fairKeys(keys(), this.name),
                            PermitGrant.fairArgs(
                                    this.deployment, this.name, id, this.limit, terms.millis(), "0", "0", "0", "1")));
        } catch (RuntimeException ignored) {
            // unreachable: the place, and a permit handed to it, expire after the waiter ttl
        }
    }

    /** Releases a permit passed on to this thread, which does not hold it, and tells its chain what Redis said. */
    void giveBack(PermitQueue.PermitHandOff handOff) {
        PermitCohort cohort = handOff.cohort();
        long result;
        try {
            result = PermitGrant.release(this.deployment, this.name, cohort.permitId());
        } catch (RuntimeException e) {
            return; // unreachable: the permit expires by its lease
        }
        if (result >= 0 || handOff.keyDeadlineNanos() - System.nanoTime() > 0) {
            // Gone after its deadline, it may simply have expired: that says nothing of the holders before.
            cohort.redisAnswered(result >= 0);
        }
    }

    /** The call may have reached Redis before it failed: free what it may have granted, if we can. */
    private void releaseQuietly(String id) {
        try {
            if (this.fair) {
                PermitGrant.releaseFair(this.deployment, this.name, id, this.limit);
            } else {
                PermitGrant.release(this.deployment, this.name, id);
            }
        } catch (RuntimeException ignored) {
            // still unreachable: the permit, if granted, expires by its lease
        }
    }

    private RedisKeys keys() {
        return this.deployment.keys();
    }
}
