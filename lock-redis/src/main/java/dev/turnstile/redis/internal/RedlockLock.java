package dev.turnstile.redis.internal;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.NamedLock;
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
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A Redlock lock on one name or several (all-or-nothing, in sorted order) over the masters of a
 * {@code Redlock}. Thread-safe.
 */
final class RedlockLock implements NamedLock {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(RedlockLock.class);

    private final RedlockEngine redlock;
    private final List<String> names;

    RedlockLock(RedlockEngine redlock, List<String> names) {
        this.redlock = redlock;
        this.names = List.copyOf(new TreeSet<>(names));
    }

    @Override
    public List<String> names() {
        return this.names;
    }

    /**
     * Acquires each name on a majority of the masters, trying up to the configured number of rounds
     * per name within {@code wait}.
     *
     * @param leaseTime the lease; null for the default lease renewed by the watchdog (on a majority)
     * @return a lease whose local deadline is its validity, or empty
     * @throws LockAcquisitionException if interrupted (the interrupt flag stays set)
     * @throws RedisUnavailableException when unreachable or failing masters, not other owners, kept
     *     a name from a majority
     */
    @Override
    public Optional<Lease> tryAcquire(Duration wait, @Nullable Duration leaseTime) {
        Arguments.requireNonNegative(wait, "wait");
        Duration lease = leaseTime == null ? null : Arguments.requireLease(leaseTime, "leaseTime");
        this.redlock.leases().requireOpen();
        long start = System.nanoTime();
        return AllOrNothing.acquire(
                this.names,
                start,
                start + wait.toNanos(),
                (name, begun, deadline) -> acquireOne(name, begun, deadline, lease));
    }

    private Optional<Lease> acquireOne(String name, long start, long deadline, @Nullable Duration leaseTime) {
        Duration lease = leaseTime != null ? leaseTime : this.redlock.options().defaultLease();
        Round last = null;
        for (int attempt = 1; attempt <= this.redlock.attempts(); attempt++) {
            last = attempt(name, lease, leaseTime == null, start);
            if (last.lease != null) {
                last.lease.start();
                if (Thread.currentThread().isInterrupted()) {
                    last.lease.close();
                    throw LockAcquisitionException.interrupted(name, Duration.ofNanos(System.nanoTime() - start));
                }
                return Optional.of(last.lease);
            }
            long pause = ThreadLocalRandom.current()
                    .nextLong(this.redlock.retryDelay().toNanos() + 1);
            if (attempt == this.redlock.attempts() || System.nanoTime() + pause > deadline) {
                break;
            }
            LockSupport.parkNanos(pause);
            if (Thread.currentThread().isInterrupted()) {
                throw LockAcquisitionException.interrupted(name, Duration.ofNanos(System.nanoTime() - start));
            }
        }
        if (last != null && last.unavailable != null) {
            throw last.unavailable;
        }
        return Optional.empty();
    }

    /**
     * Returns whether any name is held on a majority of the masters right now (one read per master
     * and name, each awaited at most the node timeout; a master that does not answer holds nothing).
     */
    @Override
    public boolean isLocked() {
        for (String name : this.names) {
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
            if (holding >= this.redlock.quorum()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Deletes the lock on every master whoever holds it, for operators (the holder finds it lost at
     * its next renewal); waits for each master at most the node timeout.
     *
     * @return the names that any master held
     */
    @Override
    public List<String> forceRelease() {
        List<String> freed = new ArrayList<>();
        for (String name : this.names) {
            List<String> keys = List.of(this.redlock.keys().lock(name));
            List<String> args = List.of(this.redlock.keys().lockChannel(name), "PUBLISH");
            boolean held = this.redlock
                    .nodes()
                    .callAll(
                            master -> (Long) LockScripts.FORCE_RELEASE.run(master, keys, args),
                            System.nanoTime() + this.redlock.nodeTimeout().toNanos(),
                            false)
                    .stream()
                    .anyMatch(answer -> answer.answered() && answer.value() == 1);
            if (held) {
                log.warn("Force-released Redlock lock '{}'", name);
                freed.add(name);
            }
        }
        return freed;
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

    private Round attempt(String name, Duration lease, boolean watchdog, long acquireStart) {
        RedlockNodes nodes = this.redlock.nodes();
        String owner = this.redlock.leases().newOwnerToken();
        List<String> keys =
                List.of(this.redlock.keys().lock(name), this.redlock.keys().lockFence(name));
        List<String> args = List.of(
                owner, Long.toString(lease.toMillis()), this.redlock.options().fenceTtlMillis(lease));
        long start = System.nanoTime();
        List<RedlockNodes.Answer<List<?>>> answers = nodes.callAll(
                master -> (List<?>) LockScripts.ACQUIRE.run(master, keys, args),
                start + this.redlock.nodeTimeout().toNanos(),
                true);
        int granted = 0;
        int refused = 0;
        long highestToken = Long.MIN_VALUE;
        Map<UnifiedJedis, Long> grantedAt = new IdentityHashMap<>();
        for (int i = 0; i < answers.size(); i++) {
            RedlockNodes.Answer<List<?>> answer = answers.get(i);
            if (!answer.answered()) {
                continue;
            }
            if ((Long) answer.value().get(0) == 1) {
                granted++;
                highestToken = Math.max(highestToken, (Long) answer.value().get(1));
                grantedAt.put(
                        this.redlock.masters().get(i), (Long) answer.value().get(2));
            } else {
                refused++;
            }
        }
        boolean interrupted = Thread.currentThread().isInterrupted();
        boolean fenced = !interrupted && granted >= nodes.quorum() && writeBackFence(name, highestToken, lease, start);
        long elapsed = System.nanoTime() - start;
        long drift = drift(lease);
        long validity = lease.toNanos() - elapsed - drift;
        if (fenced && validity > 0) {
            // The local deadline is start + lease - drift: the validity, counted from now.
            return new Round(
                    ManagedLease.granted(
                            this.redlock.leases(),
                            LeaseKind.LOCK,
                            name,
                            highestToken,
                            lease,
                            watchdog,
                            start - drift,
                            new RedlockGrant(this.redlock, name, owner, grantedAt),
                            LocalPlace.NONE),
                    null);
        }
        releaseEverywhere(this.redlock, name, owner, false);
        // A master that answered late or not at all may still have granted (a lost reply counts
        // too): once its call completes, free it there, owner-checked, on that master's pool.
        List<UnifiedJedis> masters = this.redlock.masters();
        for (int i = 0; i < answers.size(); i++) {
            if (!answers.get(i).answered()) {
                UnifiedJedis master = masters.get(i);
                nodes.afterCall(i, answers.get(i).call(), () -> releaseOn(this.redlock, master, name, owner));
            }
        }
        if (interrupted) {
            throw LockAcquisitionException.interrupted(name, Duration.ofNanos(System.nanoTime() - acquireStart));
        }
        // Other owners alone keep a majority away only if more than a minority refused; masters
        // that answered too slowly for the validity are no outage either.
        boolean contended = refused > nodes.size() - nodes.quorum();
        boolean silent = answers.stream().anyMatch(answer -> !answer.answered());
        boolean outage = granted < nodes.quorum() && !contended && silent;
        return new Round(null, outage ? unavailable(name, answers, granted, refused) : null);
    }

    /**
     * Raises every master's fencing counter to {@code token}; true when a majority confirmed within
     * the node timeout. Any later majority shares a master with this one, so it continues above.
     */
    private boolean writeBackFence(String name, long token, Duration lease, long start) {
        List<String> keys = List.of(this.redlock.keys().lockFence(name));
        List<String> args = List.of(Long.toString(token), this.redlock.options().fenceTtlMillis(lease));
        List<RedlockNodes.Answer<Object>> answers = this.redlock
                .nodes()
                .callAll(
                        master -> LockScripts.FENCE_FLOOR.run(master, keys, args),
                        System.nanoTime() + this.redlock.nodeTimeout().toNanos(),
                        true,
                        this.redlock.nodes().quorum());
        return answers.stream().filter(RedlockNodes.Answer::answered).count()
                >= this.redlock.nodes().quorum();
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

    private static long releaseOn(RedlockEngine redlock, UnifiedJedis master, String name, String owner) {
        try {
            return (Long) LockScripts.RELEASE.run(
                    master,
                    List.of(redlock.keys().lock(name)),
                    List.of(owner, redlock.keys().lockChannel(name), "PUBLISH"));
        } catch (JedisException unreachable) {
            return -2L;
        }
    }

    /**
     * Owner-checked release on every master, in parallel; returns how many held the lock.
     *
     * @param failIfUnreachable whether to throw when no master could be reached to free it (an
     *     owner's release); a failed acquire's clean-up never throws
     */
    static long releaseEverywhere(RedlockEngine redlock, String name, String owner, boolean failIfUnreachable) {
        List<String> keys = List.of(redlock.keys().lock(name));
        List<String> args = List.of(owner, redlock.keys().lockChannel(name), "PUBLISH");
        return releaseEverywhere(
                redlock, name, master -> (Long) LockScripts.RELEASE.run(master, keys, args), failIfUnreachable);
    }

    /**
     * Runs an owner-checked release script on every master, in parallel; returns how many held the
     * lock (a master that kept it for a hold counts as one that held it).
     */
    static long releaseEverywhere(
            RedlockEngine redlock, String name, Function<UnifiedJedis, Long> release, boolean failIfUnreachable) {
        // Bounded: a master that does not answer in time keeps the key until its TTL, and the
        // release, still queued for it, frees it when it can.
        List<RedlockNodes.Answer<Long>> answers = redlock.nodes()
                .callAll(release, System.nanoTime() + redlock.nodeTimeout().toNanos(), false);
        long freed = answers.stream()
                .filter(answer -> answer.answered() && answer.value() >= 0)
                .count();
        boolean anyUnanswered = answers.stream().anyMatch(answer -> !answer.answered());
        if (failIfUnreachable && anyUnanswered && freed == 0) {
            throw new RedisUnavailableException(
                    "Could not reach the Redlock masters holding lock '" + name + "'; it expires by its TTL there",
                    answers.stream()
                            .map(RedlockNodes.Answer::failure)
                            .filter(java.util.Objects::nonNull)
                            .findFirst()
                            .orElseGet(() -> new IllegalStateException("unreachable masters")));
        }
        return freed;
    }
}
