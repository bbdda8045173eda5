package dev.turnstile.redis.lock;

import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.redis.support.ManagedLease;
import dev.turnstile.redis.support.TurnstileRuntime;
import java.time.Duration;
import java.util.List;

/** A lease on one lock name: the owner token in Redis, renewed and released owner-checked. */
final class LockLease extends ManagedLease {

    private final String key;
    private final String channel;
    private final String ownerToken;
    private final LocalGates.Gate gate;
    private final long grantedAtMillis;

    /** @param grantedAtMillis the server's clock when it granted, in milliseconds */
    LockLease(
            TurnstileRuntime runtime,
            String name,
            String ownerToken,
            long fencingToken,
            long grantedAtMillis,
            Duration leaseTime,
            boolean renewedByWatchdog,
            long sentNanos,
            LocalGates.Gate gate) {
        super(runtime, "lock", name, fencingToken, leaseTime, renewedByWatchdog, sentNanos);
        this.key = runtime.keys().lock(name);
        this.channel = runtime.keys().lockChannel(name);
        this.ownerToken = ownerToken;
        this.gate = gate;
        this.grantedAtMillis = grantedAtMillis;
    }

    @Override
    protected RenewalOutcome renewInRedis(Duration leaseTime) {
        return renew(this.runtime, name(), this.ownerToken, leaseTime);
    }

    @Override
    protected long releaseInRedis() {
        return release(this.runtime, name(), this.key, this.channel, this.ownerToken);
    }

    @Override
    protected long releaseInRedisAfter(Duration holdAtLeast) {
        return (Long) this.runtime.eval(
                LockScripts.RELEASE_AFTER,
                "release lock '" + name() + "'",
                List.of(this.key),
                List.of(
                        this.ownerToken,
                        this.channel,
                        this.runtime.publishCommand(),
                        Long.toString(this.grantedAtMillis),
                        Long.toString(holdAtLeast.toMillis())));
    }

    @Override
    protected void ended(long waitersElsewhere) {
        this.gate.exit(waitersElsewhere);
    }

    /**
     * Renews (or extends) the grant. Under {@code minReplicas} the renewal must reach that many
     * replicas too, as the grant did; when it does not, the lease keeps its previous deadline and
     * {@link RedisUnavailableException} says why (the watchdog tries again until the deadline).
     */
    static RenewalOutcome renew(TurnstileRuntime runtime, String name, String ownerToken, Duration leaseTime) {
        String operation = "renew lock '" + name + "'";
        List<String> keys = List.of(runtime.keys().lock(name));
        List<String> args = List.of(ownerToken, Long.toString(leaseTime.toMillis()));
        long code;
        if (runtime.minReplicas() > 0) {
            TurnstileRuntime.Replicated replicated = runtime.evalReplicated(LockScripts.RENEW, operation, keys, args);
            code = (Long) replicated.reply();
            if (code == 1 && replicated.replicas() < runtime.minReplicas()) {
                throw new RedisUnavailableException(
                        "The renewal of lock '" + name + "' reached only " + replicated.replicas() + " of the "
                                + runtime.minReplicas() + " replicas required (minReplicas); the lease keeps its"
                                + " previous deadline",
                        new IllegalStateException(
                                "WAIT " + runtime.minReplicas() + " answered " + replicated.replicas()));
            }
        } else {
            code = (Long) runtime.eval(LockScripts.RENEW, operation, keys, args);
        }
        return code == 1 ? RenewalOutcome.RENEWED : code == 0 ? RenewalOutcome.GONE : RenewalOutcome.TAKEN_OVER;
    }

    static long release(TurnstileRuntime runtime, String name, String key, String channel, String ownerToken) {
        return (Long) runtime.eval(
                LockScripts.RELEASE,
                "release lock '" + name + "'",
                List.of(key),
                List.of(ownerToken, channel, runtime.publishCommand()));
    }
}
