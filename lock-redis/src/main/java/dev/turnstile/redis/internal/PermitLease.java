package dev.turnstile.redis.internal;

import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.semaphore.Permit;
import java.time.Duration;
import java.util.List;

/** A lease on one permit: a member of the holders ZSET, renewed and released by its id. */
final class PermitLease extends ManagedLease implements Permit {

    private final RedisDeployment deployment;
    private final String id;
    private final String holdersKey;
    private final String channel;
    private final long grantedAtMillis;

    /** @param grantedAtMillis the server's clock when it granted, in milliseconds */
    PermitLease(
            RedisDeployment deployment,
            String name,
            String id,
            long fencingToken,
            long grantedAtMillis,
            Duration leaseTime,
            boolean renewedByWatchdog,
            long sentNanos) {
        super(deployment.leases(), LeaseKind.SEMAPHORE, name, fencingToken, leaseTime, renewedByWatchdog, sentNanos);
        this.deployment = deployment;
        this.id = id;
        this.holdersKey = deployment.keys().semaphore(name);
        this.channel = deployment.keys().semaphoreChannel(name);
        this.grantedAtMillis = grantedAtMillis;
    }

    @Override
    public String id() {
        return this.id;
    }

    @Override
    protected RenewalOutcome renewInRedis(Duration leaseTime) {
        long renewed = (Long) this.deployment
                .scripts()
                .eval(
                        SemaphoreScripts.RENEW,
                        "renew a permit of semaphore '" + name() + "'",
                        List.of(this.holdersKey),
                        List.of(this.id, Long.toString(leaseTime.toMillis())));
        return renewed == 1 ? RenewalOutcome.RENEWED : RenewalOutcome.GONE;
    }

    @Override
    protected long releaseInRedis() {
        return release(this.deployment, name(), this.id);
    }

    @Override
    protected long releaseInRedisAfter(Duration holdAtLeast) {
        return (Long) this.deployment
                .scripts()
                .eval(
                        SemaphoreScripts.RELEASE_AFTER,
                        "release a permit of semaphore '" + name() + "'",
                        List.of(this.holdersKey),
                        List.of(
                                this.id,
                                this.channel,
                                this.deployment.signalMode().publishCommand(),
                                Long.toString(this.grantedAtMillis),
                                Long.toString((holdAtLeast.toNanos() + 999_999) / 1_000_000)));
    }

    static long release(RedisDeployment deployment, String name, String id) {
        return (Long) deployment
                .scripts()
                .eval(
                        SemaphoreScripts.RELEASE,
                        "release a permit of semaphore '" + name + "'",
                        List.of(deployment.keys().semaphore(name)),
                        List.of(
                                id,
                                deployment.keys().semaphoreChannel(name),
                                deployment.signalMode().publishCommand()));
    }
}
