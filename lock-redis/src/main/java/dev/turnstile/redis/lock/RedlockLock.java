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
                if (Thread.currentThread().isInterrupted()) {
                    granted.get().close();
                    throw LockAcquisitionException.interrupted(this.name, Duration.ofNanos(System.nanoTime() - start));
                }
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
        List<UnifiedJedis> masters = this.redlock.masters();
        for (UnifiedJedis master : masters) {
            calls.add(this.redlock.submit(() -> acquireOn(master, keys, args)));
        }
        long granted = 0;
        long highestToken = Long.MIN_VALUE;
        long timeoutEnd = start + this.redlock.nodeTimeout().toNanos();
        boolean interrupted = false;
        for (CompletableFuture<Long> call : calls) {
            Long token;
            try {
                token = call.get(Math.max(0, timeoutEnd - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
                token = null;
            } catch (Exception timedOutOrFailed) {
                token = null;
            }
            if (token != null) {
                granted++;
                highestToken = Math.max(highestToken, token);
            }
        }
        long elapsed = System.nanoTime() - start;
        long drift = drift(lease);
        long validity = lease.toNanos() - elapsed - drift;
        if (!interrupted && granted >= this.redlock.quorum() && validity > 0) {
            // The local deadline is start + lease - drift: the validity, counted from now.
            return Optional.of(
                    new RedlockLease(this.redlock, this.name, owner, highestToken, lease, watchdog, start - drift));
        }
        releaseEverywhere(this.redlock, this.name, owner, false);
        // A master that answers after its timeout may still grant: free that grant when it does.
        for (int i = 0; i < calls.size(); i++) {
            UnifiedJedis master = masters.get(i);
            calls.get(i).thenAccept(token -> {
                if (token != null) {
                    releaseOn(this.redlock, master, this.name, owner);
                }
            });
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
            throw LockAcquisitionException.interrupted(this.name, Duration.ofNanos(elapsed));
        }
        return Optional.empty();
    }

    /** The clock-drift allowance of the Redlock algorithm: 1% of the lease plus 2 ms. */
    static long drift(Duration lease) {
        return lease.toNanos() / 100 + TimeUnit.MILLISECONDS.toNanos(2);
    }

    private static @Nullable Long acquireOn(UnifiedJedis master, List<String> keys, List<String> args) {
        try {
            List<?> reply = (List<?>) LockScripts.ACQUIRE.run(master, keys, args);
            return (Long) reply.get(0) == 1 ? (Long) reply.get(1) : null;
        } catch (JedisException unreachable) {
            return null;
        }
    }

    private static long releaseOn(Redlock redlock, UnifiedJedis master, String name, String owner) {
        TurnstileRuntime runtime = redlock.runtime();
        try {
            return (Long) LockScripts.RELEASE.run(
                    master,
                    List.of(runtime.keys().lock(name)),
                    List.of(owner, runtime.keys().lockChannel(name), "PUBLISH"));
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
    static long releaseEverywhere(Redlock redlock, String name, String owner, boolean failIfUnreachable) {
        List<CompletableFuture<Long>> calls = new ArrayList<>();
        for (UnifiedJedis master : redlock.masters()) {
            calls.add(redlock.submit(() -> releaseOn(redlock, master, name, owner)));
        }
        long freed = 0;
        boolean anyUnreachable = false;
        for (CompletableFuture<Long> call : calls) {
            long result = call.join();
            freed += result >= 0 ? 1 : 0;
            anyUnreachable |= result == -2;
        }
        if (failIfUnreachable && anyUnreachable && freed == 0) {
            throw new RedisUnavailableException(
                    "Could not reach the Redlock masters holding lock '" + name + "'; it expires by its TTL there",
                    new IllegalStateException("unreachable masters"));
        }
        return freed;
    }
}
