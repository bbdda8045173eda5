package dev.turnstile.redis.internal;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.RedisUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.UnifiedJedis;

/**
 * A Redlock lock on one name or several (all-or-nothing, in sorted order) over the masters of a
 * {@code Redlock}. Thread-safe.
 */
final class RedlockLock extends AllOrNothingLock {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(RedlockLock.class);

    /**
     * How far below a master's clock a first proposal may be when the master has no counter for the
     * name (a new name, an expired counter, a master restarted empty): clients' clocks may be that
     * far behind the masters' and still get a token in one round; further behind, they get it in
     * two. Every counter lives this long plus 1 ms longer than its ttl after its master's clock has
     * passed it. A master restarted empty must stay down until its clock, less this allowance, is
     * past the highest token it took (besides a lease, for the lock); that token may lead the
     * master's own clock, by as far as the clock of a client or of another master was ahead.
     */
    static final long CLOCK_ALLOWANCE_MICROS = 1_000_000;

    /** {@link #CLOCK_ALLOWANCE_MICROS} as the acquire script's argument. */
    static final String ALLOWANCE = Long.toString(CLOCK_ALLOWANCE_MICROS);

    private final RedlockEngine redlock;

    RedlockLock(RedlockEngine redlock, List<String> names) {
        super(redlock, List.copyOf(new TreeSet<>(names)));
        this.redlock = redlock;
    }

    /**
     * Acquires the name on a majority of the masters: tries rounds until one is granted or the wait
     * has passed, with a random pause of up to the retry delay between them: the wait is the only
     * deadline (a round that starts before it may end up to a node timeout after it, or two after a
     * round that must be repeated). The lease's local deadline is its validity. The default lease is
     * renewed by the watchdog on a majority.
     *
     * @throws LockAcquisitionException if interrupted (the interrupt flag stays set)
     * @throws RedisUnavailableException when unreachable or failing masters, not other owners, kept
     *     the name from a majority
     */
    @Override
    Optional<Lease> acquireOne(String name, long start, long deadline, LeaseTerms terms) {
        while (true) {
            this.redlock.leases().requireOpen();
            Round last = attempt(name, terms, start);
            if (last.lease != null) {
                last.lease.start();
                if (Thread.currentThread().isInterrupted()) {
                    last.lease.close();
                    throw LockAcquisitionException.interrupted(name, Duration.ofNanos(System.nanoTime() - start));
                }
                return Optional.of(last.lease);
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                if (last.unavailable != null) {
                    throw last.unavailable;
                }
                return Optional.empty();
            }
            long pause = ThreadLocalRandom.current()
                    .nextLong(this.redlock.retryDelay().toNanos() + 1);
            LockSupport.parkNanos(Math.min(pause, left));
            if (Thread.currentThread().isInterrupted()) {
                throw LockAcquisitionException.interrupted(name, Duration.ofNanos(System.nanoTime() - start));
            }
        }
    }

    /**
     * Whether the name is held on a majority of the masters right now (one read per master, each
     * awaited at most the node timeout; a master that does not answer holds nothing).
     */
    @Override
    boolean isLocked(String name) {
        String key = this.redlock.keys().lock(name);
        long holding = this.redlock
                .nodes()
                .callAll(
                        master -> master.exists(key),
                        System.nanoTime() + this.redlock.nodeTimeout().toNanos(),
                        false)
                .stream()
                .filter(answer -> answer.answered() && Boolean.TRUE.equals(answer.value()))
                .count();
        return holding >= this.redlock.quorum();
    }

    /**
     * Deletes the name on every master whoever holds it, for operators (the holder finds it lost at
     * its next renewal); waits for each master at most the node timeout. True when any master held
     * it.
     */
    @Override
    boolean forceRelease(String name) {
        List<String> keys =
                List.of(this.redlock.keys().lock(name), this.redlock.keys().lockForceReleased(name));
        List<String> args = List.of(this.redlock.keys().lockChannel(name), "PUBLISH");
        boolean held = this.redlock
                .nodes()
                .runAll(
                        LockScripts.FORCE_RELEASE,
                        keys,
                        master -> args,
                        System.nanoTime() + this.redlock.nodeTimeout().toNanos(),
                        false,
                        this.redlock.masterCount())
                .stream()
                .anyMatch(answer -> answer.answered() && (Long) answer.value() == 1);
        if (held) {
            log.warn("Force-released Redlock lock '{}'", name);
        }
        return held;
    }

    /**
     * One round's result: a lease, or why not.
     *
     * @param lease the lease, or null
     * @param unavailable set when unreachable or failing masters, not other owners, kept the round
     *     from a majority
     */
    private record Round(
            @Nullable ManagedLease lease, @Nullable RedisUnavailableException unavailable) {}

    /** One round of acquire calls: what the masters answered to one proposed token. */
    private final class Proposal {

        final List<RedlockNodes.Answer<Object>> answers;
        final long token;
        int granted;
        int refused;
        int tooLow;
        /** The least token every master that found the proposal too low would take. */
        long least = Long.MIN_VALUE;

        final Map<UnifiedJedis, Long> grantedAt = new IdentityHashMap<>();

        Proposal(List<String> keys, List<String> args, long token, long deadlineNanos) {
            RedlockNodes nodes = RedlockLock.this.redlock.nodes();
            this.token = token;
            this.answers =
                    nodes.runAll(LockScripts.REDLOCK_ACQUIRE, keys, master -> args, deadlineNanos, true, nodes.size());
            for (int i = 0; i < this.answers.size(); i++) {
                RedlockNodes.Answer<Object> answer = this.answers.get(i);
                if (!answer.answered()) {
                    continue;
                }
                List<?> reply = (List<?>) answer.value();
                long status = (Long) reply.get(0);
                if (status == 1) {
                    this.granted++;
                    this.grantedAt.put(RedlockLock.this.redlock.masters().get(i), (Long) reply.get(2));
                } else if (status == 2) {
                    this.tooLow++;
                    this.least = Math.max(this.least, (Long) reply.get(1));
                } else {
                    this.refused++;
                }
            }
        }
    }

    /**
     * One attempt: every master is offered the same fencing token, this client's clock in µs, and a
     * master grants only with it, so the token is on the granting majority itself: no write-back
     * round follows. When masters found it too low (a counter above it, or, with no counter, a
     * master's clock more than the allowance ahead of this client's) and could make a majority, a
     * second round offers the greatest of the least tokens they named: each of them recorded its
     * least, so each takes it however its clock moved meanwhile. Tokens so increase whatever the
     * clients' and the masters' clocks say; a clock behind costs a round.
     */
    private Round attempt(String name, LeaseTerms terms, long acquireStart) {
        Duration lease = terms.leaseTime();
        RedlockNodes nodes = this.redlock.nodes();
        String owner = this.redlock.leases().newOwnerToken();
        List<String> keys =
                List.of(this.redlock.keys().lock(name), this.redlock.keys().lockFence(name));
        long start = System.nanoTime();
        long proposed = clockMicros();
        Proposal round = new Proposal(
                keys,
                args(owner, terms, proposed),
                proposed,
                start + this.redlock.nodeTimeout().toNanos());
        List<Proposal> rounds = new ArrayList<>(List.of(round));
        if (round.granted < nodes.quorum()
                && round.tooLow > 0
                && round.granted + round.tooLow >= nodes.quorum()
                && !Thread.currentThread().isInterrupted()) {
            long token = Math.max(round.least, round.token + 1);
            round = new Proposal(
                    keys,
                    args(owner, terms, token),
                    token,
                    System.nanoTime() + this.redlock.nodeTimeout().toNanos());
            rounds.add(round);
        }
        boolean interrupted = Thread.currentThread().isInterrupted();
        long elapsed = System.nanoTime() - start;
        long drift = drift(lease);
        long validity = lease.toNanos() - elapsed - drift;
        // A master that has not answered (a lost reply counts too) may still grant, after a release
        // sent now: such calls are freed there, owner-checked, once they complete.
        Map<Integer, java.util.concurrent.CompletableFuture<?>> unanswered = new java.util.HashMap<>();
        for (Proposal each : rounds) {
            for (int i = 0; i < each.answers.size(); i++) {
                if (!each.answers.get(i).answered()) {
                    // both rounds' calls to one master: freed once the last of them completes
                    unanswered.merge(i, each.answers.get(i).call(), java.util.concurrent.CompletableFuture::allOf);
                }
            }
        }
        if (!interrupted && round.granted >= nodes.quorum() && validity > 0) {
            // The local deadline is start + lease - drift: the validity, counted from now.
            return new Round(
                    ManagedLease.granted(
                            this.redlock.leases(),
                            LeaseKind.LOCK,
                            name,
                            round.token,
                            terms,
                            start - drift,
                            new RedlockGrant(this.redlock, name, owner, round.grantedAt, unanswered),
                            LocalPlace.NONE),
                    null);
        }
        RedlockRelease.releaseWhenDone(this.redlock, name, owner, unanswered);
        RedlockRelease.releaseEverywhere(this.redlock, name, owner, false);
        if (interrupted) {
            throw LockAcquisitionException.interrupted(name, Duration.ofNanos(System.nanoTime() - acquireStart));
        }
        // Other owners alone keep a majority away only if more than a minority refused; masters
        // that answered too slowly for the validity are no outage either.
        boolean contended = round.refused > nodes.size() - nodes.quorum();
        boolean silent = round.answers.stream().anyMatch(answer -> !answer.answered());
        boolean outage = round.granted < nodes.quorum() && !contended && silent;
        return new Round(null, outage ? unavailable(name, round.answers, round.granted, round.refused) : null);
    }

    private List<String> args(String owner, LeaseTerms terms, long token) {
        return List.of(
                owner,
                terms.millis(),
                this.redlock.options().fenceTtlMillis(terms.leaseTime()),
                Long.toString(token),
                ALLOWANCE);
    }

    /** This client's clock, in µs since the epoch: the fencing token it proposes first. */
    private static long clockMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    private RedisUnavailableException unavailable(
            String name, List<? extends RedlockNodes.Answer<?>> answers, int granted, int refused) {
        RedlockNodes nodes = this.redlock.nodes();
        List<String> failing = new ArrayList<>();
        Throwable cause = null;
        boolean tls = false;
        for (int i = 0; i < answers.size(); i++) {
            Throwable failure = answers.get(i).failure();
            if (failure != null) {
                String explained = TlsFailures.explain(failure, TlsFailures.REDLOCK_SETTINGS);
                tls |= explained != null;
                failing.add(nodes.describe(i) + ": " + (explained != null ? explained : failure.getMessage()));
                cause = cause == null ? failure : cause;
            }
        }
        return new RedisUnavailableException(
                "Could not acquire lock '" + name + "' on a majority of the Redlock masters (" + nodes.quorum()
                        + " of " + nodes.size() + "): " + granted + " granted, " + refused
                        + " held by another owner, and these did not answer: " + String.join("; ", failing)
                        + (tls
                                ? ". Check the TLS settings of those masters' clients."
                                : ". Check that the masters are up and reachable."),
                cause != null ? cause : new IllegalStateException("no answer"));
    }

    /** The clock-drift allowance of the Redlock algorithm: 1% of the lease plus 2 ms. */
    static long drift(Duration lease) {
        return lease.toNanos() / 100 + TimeUnit.MILLISECONDS.toNanos(2);
    }
}
