package dev.turnstile.redis.lock;

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

    LockLease(
            TurnstileRuntime runtime,
            String name,
            String ownerToken,
            long fencingToken,
            Duration leaseTime,
            boolean renewedByWatchdog,
            long sentNanos,
            LocalGates.Gate gate) {
        super(runtime, "lock", name, fencingToken, leaseTime, renewedByWatchdog, sentNanos);
        this.key = runtime.keys().lock(name);
        this.channel = runtime.keys().lockChannel(name);
        this.ownerToken = ownerToken;
        this.gate = gate;
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
    protected void ended(long waitersElsewhere) {
        this.gate.exit(waitersElsewhere);
    }

    static RenewalOutcome renew(TurnstileRuntime runtime, String name, String ownerToken, Duration leaseTime) {
        Object result = runtime.eval(
                LockScripts.RENEW,
                "renew lock '" + name + "'",
                List.of(runtime.keys().lock(name)),
                List.of(ownerToken, Long.toString(leaseTime.toMillis())));
        long code = (Long) result;
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
