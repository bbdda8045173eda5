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
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The counting semaphore on one Redis deployment: {@link RedisSemaphore}'s implementation. Its calls
 * to Redis are {@link PermitCalls}.
 *
 * <p>Waiting threads of one process queue in that process ({@link PermitQueue}): at most {@code
 * limit} of them hold or contend in Redis, and a holder that releases while others queue may pass
 * its permit to the first of them without a Redis round trip, under the bounds and conditions
 * {@link PermitQueue} states. A try that does not wait goes to Redis at once.
 *
 * <p>A fair semaphore's waiters have their tickets in Redis's queue, so arrival order holds across
 * processes: those of one process wait in {@link FairPermitQueue}, which takes their tickets in
 * batches and passes a permit between them only in ticket order across processes. A try that does
 * not wait, and every fair waiter under {@code minReplicas}, takes its ticket in a call of its own
 * ({@link FairPermitWait}).
 *
 * <p>{@code leaseTime == null} means the default lease, renewed by the watchdog; a given lease time
 * is not renewed. Both are decided once, where an acquire enters, as {@link LeaseTerms}, which the
 * acquire script and the lease take unchanged.
 */
final class CountingSemaphore implements RedisSemaphore {

    private static final Logger log = LoggerFactory.getLogger(CountingSemaphore.class);

    private final RedisDeployment deployment;
    private final PermitQueues queues;
    private final String name;
    private final int limit;
    private final boolean fair;
    private final PermitCalls calls;
    /** The waits of a fair semaphore; null for an unfair one. */
    private final @Nullable FairPermitWait fairWait;

    private CountingSemaphore(RedisDeployment deployment, PermitQueues queues, String name, int limit, boolean fair) {
        this.deployment = deployment;
        this.queues = queues;
        this.name = name;
        this.limit = limit;
        this.fair = fair;
        this.calls = new PermitCalls(deployment, queues, name, limit, fair);
        this.fairWait = fair
                ? new FairPermitWait(deployment.signals(), deployment.keys().semaphoreChannel(name), this.calls)
                : null;
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
        LeaseTerms terms = LeaseTerms.of(leaseTime, this.deployment.options());
        this.deployment.leases().requireOpen();
        long start = System.nanoTime();
        long deadline = start + wait.toNanos();
        boolean waits = !wait.isZero();
        if (this.fairWait != null) {
            // Strict arrival order across processes: every waiter has its ticket in Redis's queue.
            if (waits && this.deployment.options().minReplicas() == 0) {
                return awaitFair(terms, start, deadline);
            }
            String id = this.deployment.leases().newOwnerToken();
            ManagedLease lease = this.fairWait.await(id, terms, waits, deadline, () -> interrupted(start));
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
            ManagedLease passed = passedOn(handOff, terms, queue::place);
            if (passed != null) {
                return Optional.of(new PermitLease(
                        Acquisition.start(passed, () -> interrupted(start)),
                        handOff.cohort().permitId()));
            }
            // Too little of the permit is left to hold (this thread was slow to wake): back to Redis,
            // and if it was gone already, those who passed it on held it without Redis.
            this.calls.giveBack(handOff);
        }
        String id = this.deployment.leases().newOwnerToken();
        ManagedLease lease = Acquisition.await(
                this.deployment.signals(),
                keys().semaphoreChannel(this.name),
                deadline,
                entry.yieldFirst(),
                () -> this.calls.attempt(id, terms, waits, queue),
                queue::exit,
                () -> interrupted(start));
        return lease == null ? Optional.empty() : Optional.of(new PermitLease(lease, id));
    }

    /**
     * Waits in this process's queue of the fair semaphore ({@link FairPermitQueue}) until {@code
     * deadline}: a permit granted in Redis, or passed on by a local holder in ticket order. A
     * passed permit with too little left to hold goes back to Redis, and the thread waits again
     * (with a new ticket).
     */
    private Optional<Permit> awaitFair(LeaseTerms terms, long start, long deadline) {
        while (true) {
            String id = this.deployment.leases().newOwnerToken();
            FairPermitQueue queue =
                    this.queues.enterFair(this.deployment, this.name, this.limit, PermitCalls.WAITER_TTL.toNanos() / 3);
            Object outcome;
            try {
                outcome = queue.await(id, terms, deadline);
            } catch (InterruptedException e) {
                throw interrupted(start);
            } finally {
                this.queues.leaveFair(queue);
            }
            if (outcome == null) {
                return Optional.empty();
            }
            if (outcome instanceof ManagedLease lease) {
                return Optional.of(new PermitLease(Acquisition.start(lease, () -> interrupted(start)), id));
            }
            PermitQueue.PermitHandOff handOff = (PermitQueue.PermitHandOff) outcome;
            ManagedLease passed = passedOn(handOff, terms, queue::place);
            if (passed != null) {
                return Optional.of(new PermitLease(
                        Acquisition.start(passed, () -> interrupted(start)),
                        handOff.cohort().permitId()));
            }
            queue.grants().giveBack(id, handOff);
            if (deadline - System.nanoTime() <= 0) {
                return Optional.empty();
            }
        }
    }

    /**
     * The lease on a permit the previous local holder passed on, holding the place {@code place}
     * gives it, or null when too little of it is left to be worth holding (then no place is taken):
     * the caller releases it in Redis and contends or waits again.
     */
    private @Nullable ManagedLease passedOn(
            PermitQueue.PermitHandOff handOff,
            LeaseTerms terms,
            java.util.function.Function<PermitCohort, LocalPlace> place) {
        if (!LocalGates.worthHolding(handOff.keyDeadlineNanos(), terms)) {
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
        long grantedAt = cohort.serverMillisAt(handOff.handedNanos());
        return ManagedLease.passedOn(
                this.deployment.leases(),
                LeaseKind.SEMAPHORE,
                this.name,
                handOff.fencingToken(),
                handOff.keyDeadlineNanos(),
                handOff.handedNanos(),
                terms,
                this.fair
                        ? PermitGrant.fair(this.deployment, this.name, cohort.permitId(), grantedAt, this.limit)
                        : new PermitGrant(this.deployment, this.name, cohort.permitId(), grantedAt),
                place.apply(cohort));
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

    private SemaphoreFullException interrupted(long start) {
        Thread.currentThread().interrupt();
        return SemaphoreFullException.interrupted(this.name, this.limit, Duration.ofNanos(System.nanoTime() - start));
    }

    private RedisKeys keys() {
        return this.deployment.keys();
    }
}
