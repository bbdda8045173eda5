package dev.turnstile.redis.internal;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LockAcquisitionException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A distributed lock on one name, or on several names at once (all-or-nothing), in one Redis
 * deployment. Obtain it from {@code Turnstile.lock(...)}; it is a cheap, stateless handle, safe to
 * share between threads and to create per call.
 *
 * <p>Acquiring is one Lua script ({@code SET NX PX} plus the fencing counter): the lock key never
 * exists without a time to live. A waiter sleeps until a release is published (or a bounded,
 * jittered backoff elapses) instead of polling Redis. Threads of one process that want the same
 * name queue locally, so only one of them contends in Redis, and a holder that releases while
 * others queue passes the grant to the next of them without a Redis round trip (the lock cohort,
 * bounded by {@code Turnstile.Builder.lockCohort}).
 *
 * <p>Several names are taken one by one in sorted order within one shared wait, and the ones
 * already taken are released if a later one cannot be: two callers locking the same names in
 * different orders never deadlock.
 *
 * <p>{@code leaseTime == null} means the default lease (30 s unless configured), renewed by the
 * watchdog at a third of its time until the lease is released; a given lease time is not renewed
 * (both decided once, as {@link LeaseTerms}).
 */
final class RedisLock extends AllOrNothingLock {

    private static final Logger log = LoggerFactory.getLogger(RedisLock.class);

    private final RedisDeployment deployment;
    private final LocalGates gates;

    RedisLock(RedisDeployment deployment, LocalGates gates, List<String> names) {
        super(deployment, names); // one name, or distinct and sorted (Locks)
        this.deployment = deployment;
        this.gates = gates;
    }

    /**
     * One {@code EXISTS} per name, as on Redlock: a name is locked while its key exists, which is
     * exactly while another owner's acquire is refused. That includes a forced release's hold-off
     * (the lock cohort's longest age), during which the holder's process may still pass the grant
     * between its threads and nobody else may take it. The answer may be stale by the time it is
     * used.
     */
    @Override
    boolean isLocked(String name) {
        String key = this.deployment.keys().lock(name);
        return this.deployment.scripts().call("read lock '" + name + "'", redis -> redis.exists(key));
    }

    @Override
    boolean forceRelease(String name) {
        long deleted = (Long) this.deployment
                .scripts()
                .eval(
                        LockScripts.FORCE_RELEASE,
                        "force-release lock '" + name + "'",
                        List.of(
                                this.deployment.keys().lock(name),
                                this.deployment.keys().lockForceReleased(name)),
                        List.of(
                                this.deployment.keys().lockChannel(name),
                                this.deployment.signalMode().publishCommand(),
                                // at least 1 ms: PX must be positive
                                Long.toString(Math.max(
                                        1,
                                        this.deployment.options().cohortMaxAge().toMillis()))));
        if (deleted != 1) {
            return false;
        }
        log.warn("Force-released lock '{}'", name);
        return true;
    }

    @Override
    Optional<Lease> acquireOne(String name, long start, long deadline, LeaseTerms terms) {
        LocalGates.Entry entry;
        try {
            entry = this.gates.enter(name, deadline);
        } catch (InterruptedException e) {
            throw interrupted(name, start);
        }
        if (entry == null) {
            return Optional.empty();
        }
        LocalGates.Gate gate = entry.gate();
        boolean yieldFirst = entry.yieldFirst();
        HandOff handOff = entry.handOff();
        if (handOff != null) {
            ManagedLease passed = passedOn(name, handOff, terms, gate);
            if (passed != null) {
                return Optional.of(Acquisition.start(passed, () -> interrupted(name, start)));
            }
            // Too little of the grant is left to hold (this thread was slow to wake): back to Redis.
            // Processes told of that release get the head start a release by the holder gives them.
            yieldFirst = releaseQuietly(gate, handOff.cohort().ownerToken()) > 0;
        }
        boolean yielding = yieldFirst;
        WaitLoop.Attempt<ManagedLease> attempt = new WaitLoop.Attempt<>() {
            /** Whether this thread waits already: it was refused, or it yields to another process. */
            private boolean waiting = yielding;

            @Override
            public WaitLoop.Outcome<ManagedLease> tryOnce() {
                WaitLoop.Outcome<ManagedLease> outcome = attempt(name, terms, gate, this.waiting);
                this.waiting = true;
                return outcome;
            }
        };
        return Optional.ofNullable(Acquisition.await(
                this.deployment.signals(),
                gate.channel,
                deadline,
                yieldFirst,
                attempt,
                () -> gate.exit(-1),
                () -> interrupted(name, start)));
    }

    /**
     * The lease on a grant the previous local holder passed on, or null when too little of the grant
     * is left to be worth holding: the caller then releases it in Redis and contends there.
     */
    private @Nullable ManagedLease passedOn(String name, HandOff handOff, LeaseTerms terms, LocalGates.Gate gate) {
        if (LocalGates.worthHolding(handOff.keyDeadlineNanos(), terms)) {
            if (log.isTraceEnabled()) {
                log.trace("Lock '{}' passed on locally (fencing token {})", name, handOff.fencingToken());
            }
            Cohort cohort = handOff.cohort();
            return ManagedLease.passedOn(
                    this.deployment.leases(),
                    name,
                    handOff,
                    terms,
                    new LockGrant(
                            this.deployment,
                            name,
                            gate,
                            cohort.ownerToken(),
                            cohort.serverMillisAt(handOff.handedNanos())),
                    gate.place(cohort));
        }
        return null;
    }

    /**
     * One try in Redis. A thread that waits already ({@code waiting}) takes the grant marked as wanted
     * ({@link RedisKeys#WANTED}), as a refused acquire would leave it: where one waiter was, others
     * (another process's, or this process's thread that yields to them) may be, and only a marked
     * grant's release tells them. A first try's grant is unmarked until someone is refused.
     */
    private WaitLoop.Outcome<ManagedLease> attempt(
            String name, LeaseTerms terms, LocalGates.Gate gate, boolean waiting) {
        String owner = this.deployment.leases().newOwnerToken();
        // Every grant reserves its cohort's tokens, also when nobody queues yet: threads that come
        // while it is held get it passed on. (Read once: the script and the cohort must agree.)
        int holders = this.deployment.options().cohortHolders();
        long sent = System.nanoTime();
        Object reply;
        Cohort.Refill refill = CohortRefill.of(this.deployment, name, gate);
        List<String> keys = gate.acquireKeys;
        String blockTtl = this.deployment.options().fenceBlockTtlMillis(terms.leaseTime(), holders);
        List<String> args = holders == TurnstileOptions.DEFAULT_COHORT_HOLDERS
                ? List.of(waiting ? owner + RedisKeys.WANTED : owner, terms.millis(), blockTtl)
                : List.of(
                        waiting ? owner + RedisKeys.WANTED : owner,
                        terms.millis(),
                        blockTtl,
                        Integer.toString(holders));
        try {
            // An interrupt is acted on after the call (by the wait that follows, or the lease's start).
            reply = Uninterrupted.call(() -> this.deployment
                    .scripts()
                    .evalGranting(
                            LockScripts.ACQUIRE,
                            gate.acquireOperation,
                            keys,
                            args,
                            gate.subject,
                            () -> releaseQuietly(gate, owner)));
        } catch (RuntimeException e) {
            // Unreachable, or a script that failed part-way (a command the Redis user may not run)
            // after its SET: free what it may have granted instead of leaving it for the lease.
            releaseQuietly(gate, owner);
            throw e;
        }
        LockScripts.Acquired acquired = LockScripts.Acquired.of(reply);
        long value = acquired.value();
        if (acquired.granted()) {
            if (log.isDebugEnabled()) {
                log.debug("Acquired lock '{}' (fencing token {})", name, value);
            }
            long grantedAt = acquired.serverMillis();
            Cohort cohort = new Cohort(
                    owner,
                    holders,
                    this.deployment.options().cohortMaxAge().toNanos(),
                    new Cohort.Block(value, sent, grantedAt),
                    refill);
            return WaitLoop.Outcome.granted(ManagedLease.granted(
                    this.deployment.leases(),
                    LeaseKind.LOCK,
                    name,
                    value,
                    terms,
                    sent,
                    new LockGrant(this.deployment, name, gate, owner, grantedAt),
                    gate.place(cohort)));
        }
        // (The lease's construction only assigns fields: nothing can fail between grant and lease.)
        return WaitLoop.Outcome.busy(value > 0 ? TimeUnit.MILLISECONDS.toNanos(value) : 0);
    }

    /**
     * Frees a grant of {@code owner}, if Redis can be reached.
     *
     * @return the processes told of the release, or -1 (not held by this owner, or Redis unreachable)
     */
    private long releaseQuietly(LocalGates.Gate gate, String owner) {
        try {
            return LockGrant.free(this.deployment, gate, owner);
        } catch (RuntimeException unreachable) {
            return -1; // the grant, if any, expires by its own TTL
        }
    }

    private LockAcquisitionException interrupted(String name, long start) {
        Thread.currentThread().interrupt();
        return LockAcquisitionException.interrupted(name, Duration.ofNanos(System.nanoTime() - start));
    }

    @Override
    public String toString() {
        return "RedisLock" + names();
    }
}
