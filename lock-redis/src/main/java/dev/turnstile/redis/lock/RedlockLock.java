package dev.turnstile.redis.lock;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.redis.support.Arguments;
import dev.turnstile.redis.support.TurnstileRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/** One Redlock lock name over the masters of a {@link Redlock}. Thread-safe. */
public final class RedlockLock {

    private final Redlock redlock;
    private final String name;

    RedlockLock(Redlock redlock, String name) {
        this.redlock = redlock;
        this.name = name;
    }

    /** Returns the lock's name. */
    public String name() {
        return this.name;
    }

    /**
     * Acquires on a majority of the masters, trying up to the configured number of rounds within
     * {@code wait}.
     *
     * @param leaseTime the lease; null for the default lease renewed by the watchdog (on a majority)
     * @return a lease whose local deadline is its validity, or empty
     * @throws LockAcquisitionException if interrupted (the interrupt flag stays set)
     */
    public Optional<Lease> tryAcquire(Duration wait, @Nullable Duration leaseTime) {
        Arguments.requireNonNegative(wait, "wait");
        if (leaseTime != null) {
            Arguments.requirePositive(leaseTime, "leaseTime");
        }
        TurnstileRuntime runtime = this.redlock.runtime();
        runtime.requireOpen();
        Duration lease = leaseTime != null ? leaseTime : runtime.defaultLease();
        long start = System.nanoTime();
        long deadline = start + wait.toNanos();
        for (int attempt = 1; attempt <= this.redlock.attempts(); attempt++) {
            Optional<RedlockLease> granted = attempt(lease, leaseTime == null);
            if (granted.isPresent()) {
                granted.get().start();
                return Optional.of(granted.get());
            }
            long pause = ThreadLocalRandom.current()
                    .nextLong(this.redlock.retryDelay().toNanos() + 1);
            if (attempt == this.redlock.attempts() || System.nanoTime() + pause > deadline) {
                break;
            }
            LockSupport.parkNanos(pause);
            if (Thread.currentThread().isInterrupted()) {
                throw LockAcquisitionException.interrupted(this.name, Duration.ofNanos(System.nanoTime() - start));
            }
        }
        return Optional.empty();
    }

    /**
     * Acquires like {@link #tryAcquire(Duration, Duration)}, but throws when no round reached a
     * majority in time.
     */
    public Lease acquire(Duration wait, @Nullable Duration leaseTime) {
        long start = System.nanoTime();
        return tryAcquire(wait, leaseTime)
                .orElseThrow(() -> LockAcquisitionException.of(this.name, Duration.ofNanos(System.nanoTime() - start)));
    }

    private Optional<RedlockLease> attempt(Duration lease, boolean watchdog) {
        TurnstileRuntime runtime = this.redlock.runtime();
        String owner = runtime.newOwnerToken();
        List<String> keys =
                List.of(runtime.keys().lock(this.name), runtime.keys().lockFence(this.name));
        List<String> args = List.of(
                owner,
                Long.toString(lease.toMillis()),
                Long.toString(runtime.fenceRetention().toMillis()));
        long start = System.nanoTime();
        List<CompletableFuture<Long>> calls = new ArrayList<>();
        for (UnifiedJedis master : this.redlock.masters()) {
            calls.add(CompletableFuture.supplyAsync(() -> acquireOn(master, keys, args), this.redlock.nodeCalls()));
        }
        long granted = 0;
        long highestToken = Long.MIN_VALUE;
        long timeoutEnd = start + this.redlock.nodeTimeout().toNanos();
        for (CompletableFuture<Long> call : calls) {
            Long token = awaitUntil(call, timeoutEnd);
            if (token != null) {
                granted++;
                highestToken = Math.max(highestToken, token);
            }
        }
        long elapsed = System.nanoTime() - start;
        long drift = lease.toNanos() / 100 + TimeUnit.MILLISECONDS.toNanos(2);
        long validity = lease.toNanos() - elapsed - drift;
        if (granted >= this.redlock.quorum() && validity > 0) {
            return Optional.of(new RedlockLease(
                    this.redlock, this.name, owner, highestToken, lease, watchdog, start + validity - lease.toNanos()));
        }
        releaseEverywhere(this.redlock, this.name, owner);
        return Optional.empty();
    }

    private static @Nullable Long acquireOn(UnifiedJedis master, List<String> keys, List<String> args) {
        try {
            List<?> reply = (List<?>) LockScripts.ACQUIRE.run(master, keys, args);
            return (Long) reply.get(0) == 1 ? (Long) reply.get(1) : null;
        } catch (JedisException unreachable) {
            return null;
        }
    }

    private static @Nullable Long awaitUntil(CompletableFuture<Long> call, long endNanos) {
        try {
            return call.get(Math.max(0, endNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (Exception timedOutOrFailed) {
            return null;
        }
    }

    /** Owner-checked release on every master, in parallel; returns how many held the lock. */
    static long releaseEverywhere(Redlock redlock, String name, String owner) {
        TurnstileRuntime runtime = redlock.runtime();
        List<String> keys = List.of(runtime.keys().lock(name));
        List<String> args = List.of(owner, runtime.keys().lockChannel(name), "PUBLISH");
        List<CompletableFuture<Long>> calls = new ArrayList<>();
        for (UnifiedJedis master : redlock.masters()) {
            calls.add(CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return (Long) LockScripts.RELEASE.run(master, keys, args);
                        } catch (JedisException unreachable) {
                            return -2L;
                        }
                    },
                    redlock.nodeCalls()));
        }
        long freed = 0;
        boolean anyUnreachable = false;
        for (CompletableFuture<Long> call : calls) {
            long result = call.join();
            freed += result >= 0 ? 1 : 0;
            anyUnreachable |= result == -2;
        }
        if (anyUnreachable && freed == 0) {
            throw new RedisUnavailableException(
                    "Could not reach the Redlock masters holding lock '" + name + "'; it expires by its TTL there",
                    new IllegalStateException("unreachable masters"));
        }
        return freed;
    }
}
