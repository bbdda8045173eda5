package dev.turnstile.redis.internal;

import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.SemaphoreFullException;
import dev.turnstile.redis.semaphore.Permit;
import dev.turnstile.redis.semaphore.PermitHolder;
import dev.turnstile.redis.semaphore.RedisSemaphore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The counting semaphore on one Redis deployment: {@link RedisSemaphore}'s implementation.
 *
 * <p>Waiting threads of one process queue in that process ({@link PermitQueues}): at most {@code
 * limit} of them hold or contend in Redis, and a holder that releases while others queue may pass
 * its permit to the first of them without a Redis round trip, under the bounds and conditions
 * {@link PermitQueues} states. A try that does not wait goes to Redis at once.
 *
 * <p>A fair semaphore never queues in the process and never passes a permit on locally: each of
 * its waiters takes its ticket in Redis's queue on arrival and is granted in ticket order, so
 * arrival order holds across processes.
 */
final class CountingSemaphore implements RedisSemaphore {

    private static final Logger log = LoggerFactory.getLogger(CountingSemaphore.class);

    /**
     * How long a thread let in by a release that another process was told of waits for that
     * process to take the permit before it tries (the lock cohort's head start).
     */
    private static final long COURTESY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /** How long a fair waiter keeps its place without calling again (it calls at least every 1.7 s). */
    private static final Duration WAITER_TTL = Duration.ofSeconds(5);

    private final RedisDeployment deployment;
    private final PermitQueues queues;
    private final String name;
    private final int limit;
    private final boolean fair;

    private CountingSemaphore(RedisDeployment deployment, PermitQueues queues, String name, int limit, boolean fair) {
        this.deployment = deployment;
        this.queues = queues;
        this.name = name;
        this.limit = limit;
        this.fair = fair;
    }

    /**
     * The semaphore {@code name} with at most {@code limit} permits, whose waiters queue in {@code
     * queues} (one per process and deployment).
     *
     * @throws IllegalArgumentException if {@code name} is null or blank or {@code limit} is below 1
     */
    static CountingSemaphore of(RedisDeployment deployment, PermitQueues queues, String name, int limit) {
        Arguments.requireName(name, "name");
        if (limit < 1) {
            throw new IllegalArgumentException(
                    "'limit' of semaphore '" + name + "' must be at least 1 but was " + limit);
        }
        return new CountingSemaphore(deployment, queues, name, limit, false);
    }

    @Override
    public RedisSemaphore fair() {
        return new CountingSemaphore(this.deployment, this.queues, this.name, this.limit, true);
    }

    @Override
    public String name() {
        return this.name;
    }

    @Override
    public int limit() {
        return this.limit;
    }

    @Override
    public boolean isFair() {
        return this.fair;
    }

    @Override
    public Optional<Permit> tryAcquire(Duration wait, @Nullable Duration leaseTime) {
        Arguments.requireNonNegative(wait, "wait");
        Duration fixed = leaseTime == null ? null : Arguments.requireLease(leaseTime, "leaseTime");
        this.deployment.leases().requireOpen();
        long start = System.nanoTime();
        long deadline = start + wait.toNanos();
        boolean waits = !wait.isZero();
        if (this.fair) {
            // Strict arrival order across processes: every waiter queues in Redis, none here.
            String id = this.deployment.leases().newOwnerToken();
            ManagedLease lease = awaitFair(id, fixed, waits, deadline, start);
            return lease == null ? Optional.empty() : Optional.of(new PermitLease(lease, id));
        }
        PermitQueue.Entry entry;
        try {
            entry = this.queues.enter(this.name, this.limit, waits, deadline);
        } catch (InterruptedException e) {
            throw interrupted(start);
        }
        if (entry == null) {
            return Optional.empty();
        }
        PermitQueue queue = entry.queue();
        PermitQueue.PermitHandOff handOff = entry.handOff();
        if (handOff != null) {
            ManagedLease passed = passedOn(handOff, fixed, queue);
            if (passed != null) {
                return Optional.of(new PermitLease(
                        Acquisition.start(passed, () -> interrupted(start)),
                        handOff.cohort().permitId()));
            }
            // Too little of the permit is left to hold (this thread was slow to wake): back to Redis,
            // and if it was gone already, those who passed it on held it without Redis.
            giveBack(handOff);
        }
        String id = this.deployment.leases().newOwnerToken();
        long remaining = deadline - System.nanoTime();
        long courtesy = remaining > 0 && entry.yieldFirst() ? Math.min(COURTESY_NANOS, remaining) : 0;
        ManagedLease lease = Acquisition.await(
                this.deployment.signals(),
                keys().semaphoreChannel(this.name),
                deadline,
                courtesy,
                () -> attempt(id, fixed, waits, queue),
                queue::exit,
                () -> interrupted(start));
        return lease == null ? Optional.empty() : Optional.of(new PermitLease(lease, id));
    }

    /**
     * A fair waiter: takes its ticket in Redis's queue and waits, subscribed, for the release that
     * hands it a permit (or for its turn at a free one). A release of this process offers it the
     * grant in-process; one of another process leaves it for the waiter's next call, which takes it
     * at its full lease. On every way out without a lease it leaves the queue, freeing a permit
     * already handed to it.
     */
    private @Nullable ManagedLease awaitFair(
            String id, @Nullable Duration leaseTime, boolean waits, long deadline, long start) {
        if (!waits) {
            ManagedLease lease;
            try {
                lease = attempt(id, leaseTime, false, null).grant(); // leaves the queue in its script
            } catch (RuntimeException e) {
                leaveQueue(id, leaseTime);
                throw e;
            }
            return lease == null ? null : Acquisition.start(lease, () -> interrupted(start));
        }
        FairSlot slot = this.queues.waitFair(id);
        ManagedLease lease;
        try {
            lease = WaitLoop.acquireInQueue(
                    this.deployment.signals(),
                    keys().semaphoreChannel(this.name),
                    deadline,
                    () -> attemptFair(id, leaseTime, slot));
            if (lease == null) {
                // Handed a permit at the last moment: take it.
                FairSlot.FairOffer offer = slot.close();
                lease = offer == null ? null : offered(id, leaseTime, offer);
            }
        } catch (InterruptedException e) {
            slot.close();
            leaveQueue(id, leaseTime);
            throw interrupted(start);
        } catch (RuntimeException e) {
            slot.close();
            leaveQueue(id, leaseTime);
            throw e;
        } finally {
            this.queues.leaveFair(id);
        }
        if (lease == null) {
            leaveQueue(id, leaseTime);
            return null;
        }
        return Acquisition.start(lease, () -> interrupted(start));
    }

    /** One try of a queued fair waiter: the grant a release of this process offered, else Redis. */
    private WaitLoop.Outcome<ManagedLease> attemptFair(String id, @Nullable Duration leaseTime, FairSlot slot) {
        FairSlot.FairOffer offer = slot.take();
        if (offer != null) {
            return WaitLoop.Outcome.granted(offered(id, leaseTime, offer));
        }
        WaitLoop.Outcome<ManagedLease> outcome = attempt(id, leaseTime, true, null);
        if (outcome.grant() != null) {
            slot.close(); // an offer of the same permit is no longer needed
        }
        return outcome;
    }

    /** The lease on a permit a release of this process granted a fair waiter of this process. */
    private ManagedLease offered(String id, @Nullable Duration leaseTime, FairSlot.FairOffer offer) {
        return ManagedLease.granted(
                this.deployment.leases(),
                LeaseKind.SEMAPHORE,
                this.name,
                offer.fencingToken(),
                LeaseTerms.of(leaseTime, this.deployment.options()),
                offer.sentNanos(),
                PermitGrant.fair(this.deployment, this.queues, this.name, id, offer.grantedAtMillis(), this.limit),
                LocalPlace.NONE);
    }

    /**
     * The lease on a permit the previous local holder passed on, or null when too little of it is
     * left to be worth holding: the caller then releases it in Redis and contends there.
     */
    private @Nullable ManagedLease passedOn(
            PermitQueue.PermitHandOff handOff, @Nullable Duration leaseTime, PermitQueue queue) {
        LeaseTerms terms = LeaseTerms.of(leaseTime, this.deployment.options());
        Duration lease = terms.leaseTime();
        if (handOff.keyDeadlineNanos() - System.nanoTime() <= LocalGates.minLeftToPass(lease.toNanos())) {
            return null;
        }
        PermitCohort cohort = handOff.cohort();
        if (log.isTraceEnabled()) {
            log.trace(
                    "Permit {} of semaphore '{}' passed on locally (fencing token {})",
                    cohort.permitId(),
                    this.name,
                    handOff.fencingToken());
        }
        return ManagedLease.passedOn(
                this.deployment.leases(),
                LeaseKind.SEMAPHORE,
                this.name,
                handOff.fencingToken(),
                handOff.keyDeadlineNanos(),
                handOff.handedNanos(),
                terms,
                new PermitGrant(
                        this.deployment, this.name, cohort.permitId(), cohort.serverMillisAt(handOff.handedNanos())),
                queue.place(cohort));
    }

    @Override
    public List<PermitHolder> holders() {
        List<?> reply = (List<?>) this.deployment
                .scripts()
                .eval(
                        SemaphoreScripts.HOLDERS,
                        "read semaphore '" + this.name + "'",
                        List.of(keys().semaphore(this.name)),
                        List.of());
        long now = Long.parseLong((String) reply.get(0));
        List<PermitHolder> holders = new ArrayList<>();
        for (int i = 1; i + 1 < reply.size(); i += 2) {
            long expiry = Long.parseLong((String) reply.get(i + 1));
            holders.add(new PermitHolder((String) reply.get(i), Duration.ofMillis(Math.max(0, expiry - now))));
        }
        return holders;
    }

    @Override
    public String toString() {
        return "RedisSemaphore['" + this.name + "', limit " + this.limit + (this.fair ? ", fair" : "") + "]";
    }

    /**
     * One try in Redis.
     *
     * @param queue this process's queue of the semaphore, whose place the lease takes; null for a
     *     fair semaphore (no local queue, no local pass)
     */
    private WaitLoop.Outcome<ManagedLease> attempt(
            String id, @Nullable Duration leaseTime, boolean staysQueued, @Nullable PermitQueue queue) {
        LeaseTerms terms = LeaseTerms.of(leaseTime, this.deployment.options());
        Duration lease = terms.leaseTime();
        // Every grant that may pass on reserves tokens for the holders its permit may pass to (read
        // once: the script and the cohort must agree).
        int holders = queue == null ? 1 : this.deployment.options().cohortHolders();
        long sent = System.nanoTime();
        List<?> reply;
        try {
            reply = (List<?>) (this.fair ? runFair(id, lease, staysQueued, holders) : runUnfair(id, lease, holders));
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
                    this.fair
                            ? PermitGrant.fair(this.deployment, this.queues, this.name, id, grantedAt, this.limit)
                            : new PermitGrant(this.deployment, this.name, id, grantedAt),
                    place));
        }
        long hint = value > 0 ? TimeUnit.MILLISECONDS.toNanos(value) : 0;
        // A fair waiter sleeps through the signals of the waiters ahead leaving the queue, and wakes
        // at its own: the release that hands it a permit.
        return reply.size() > 2
                ? WaitLoop.Outcome.queued(hint, (Long) reply.get(2), WAITER_TTL.toNanos() / 3)
                : WaitLoop.Outcome.busy(hint);
    }

    private Object runUnfair(String id, Duration lease, int holders) {
        return run(
                SemaphoreScripts.ACQUIRE,
                "acquire a permit of semaphore '" + this.name + "'",
                List.of(keys().semaphore(this.name), keys().semaphoreFence(this.name)),
                List.of(
                        id,
                        Integer.toString(this.limit),
                        Long.toString(lease.toMillis()),
                        this.deployment.options().fenceTtlMillis(lease),
                        Integer.toString(holders)));
    }

    private Object runFair(String id, Duration lease, boolean staysQueued, int holders) {
        return run(
                SemaphoreScripts.ACQUIRE_FAIR,
                "acquire a permit of fair semaphore '" + this.name + "'",
                PermitGrant.fairKeys(keys(), this.name),
                PermitGrant.fairArgs(
                        this.deployment,
                        this.name,
                        id,
                        this.limit,
                        Long.toString(lease.toMillis()),
                        this.deployment.options().fenceTtlMillis(lease),
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
     * minReplicas}, the tokens reached too few replicas (a failover could lose them).
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
            ScriptRunner.Replicated replicated =
                    this.deployment.scripts().evalReplicated(SemaphoreScripts.RESERVE, operation, keys, args);
            reply = (List<?>) replicated.reply();
            if (replicated.replicas() < minReplicas) {
                return null; // the permit goes back to Redis instead of passing on with those tokens
            }
        } else {
            reply = (List<?>) this.deployment.scripts().eval(SemaphoreScripts.RESERVE, operation, keys, args);
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
    private void leaveQueue(String id, @Nullable Duration leaseTime) {
        Duration lease =
                leaseTime != null ? leaseTime : this.deployment.options().defaultLease();
        try {
            this.deployment
                    .scripts()
                    .eval(
                            SemaphoreScripts.LEAVE_QUEUE,
                            "leave the queue of semaphore '" + this.name + "'",
                            PermitGrant.fairKeys(keys(), this.name),
                            PermitGrant.fairArgs(
                                    this.deployment,
                                    this.name,
                                    id,
                                    this.limit,
                                    Long.toString(lease.toMillis()),
                                    "0",
                                    "0",
                                    "0",
                                    "1"));
        } catch (RuntimeException ignored) {
            // unreachable: the place, and a permit handed to it, expire after the waiter ttl
        }
    }

    /** Releases a permit passed on to this thread, which does not hold it, and tells its chain what Redis said. */
    private void giveBack(PermitQueue.PermitHandOff handOff) {
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
                PermitGrant.releaseFair(this.deployment, this.queues, this.name, id, this.limit);
            } else {
                PermitGrant.release(this.deployment, this.name, id);
            }
        } catch (RuntimeException ignored) {
            // still unreachable: the permit, if granted, expires by its lease
        }
    }

    private SemaphoreFullException interrupted(long start) {
        Thread.currentThread().interrupt();
        return SemaphoreFullException.interrupted(this.name, this.limit, Duration.ofNanos(System.nanoTime() - start));
    }

    private RedisKeys keys() {
        return this.deployment.keys();
    }
}
