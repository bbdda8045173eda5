package dev.turnstile.redis.lock;

import dev.turnstile.redis.support.ManagedLease;
import dev.turnstile.redis.support.TurnstileRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A Redlock grant: held while a majority of the masters hold it. Its local deadline is the
 * validity computed at acquisition; renewals and extensions must reach a majority within it.
 */
final class RedlockLease extends ManagedLease {

    private final Redlock redlock;
    private final String owner;

    /**
     * @param sentNanos chosen so that the local deadline ({@code sentNanos + leaseTime}) is the
     *     validity
     */
    RedlockLease(
            Redlock redlock,
            String name,
            String owner,
            long fencingToken,
            Duration leaseTime,
            boolean watchdog,
            long sentNanos) {
        super(redlock.runtime(), "lock", name, fencingToken, leaseTime, watchdog, sentNanos);
        this.redlock = redlock;
        this.owner = owner;
    }

    @Override
    protected RenewalOutcome renewInRedis(Duration leaseTime) {
        TurnstileRuntime runtime = this.redlock.runtime();
        List<String> keys = List.of(runtime.keys().lock(name()));
        List<String> args = List.of(this.owner, Long.toString(leaseTime.toMillis()));
        long start = System.nanoTime();
        List<CompletableFuture<Long>> calls = new ArrayList<>();
        for (UnifiedJedis master : this.redlock.masters()) {
            calls.add(this.redlock.submit(() -> {
                try {
                    return (Long) LockScripts.RENEW.run(master, keys, args);
                } catch (JedisException unreachable) {
                    return 0L;
                }
            }));
        }
        long renewed = 0;
        long end = start + this.redlock.nodeTimeout().toNanos();
        for (CompletableFuture<Long> call : calls) {
            try {
                renewed += call.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS) == 1 ? 1 : 0;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception timedOut) {
                // counts as not renewed
            }
        }
        long elapsed = System.nanoTime() - start;
        boolean valid = leaseTime.toNanos() - elapsed - RedlockLock.drift(leaseTime) > 0;
        if (renewed >= this.redlock.quorum() && valid) {
            return RenewalOutcome.RENEWED;
        }
        // A minority renewed: free it there too, so no master keeps a lock nobody holds.
        RedlockLock.releaseEverywhere(this.redlock, name(), this.owner, false);
        return RenewalOutcome.GONE;
    }

    /** The deadline after a renewal leaves the same drift allowance as the acquisition did. */
    @Override
    protected long deadlineAfterRenewal(long sentNanos, Duration leaseTime) {
        return sentNanos + leaseTime.toNanos() - RedlockLock.drift(leaseTime);
    }

    @Override
    protected long releaseInRedis() {
        return RedlockLock.releaseEverywhere(this.redlock, name(), this.owner, true) >= this.redlock.quorum() ? 0 : -1;
    }
}
