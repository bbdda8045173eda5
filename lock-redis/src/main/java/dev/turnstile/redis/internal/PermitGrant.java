package dev.turnstile.redis.internal;

import java.time.Duration;
import java.util.List;

/** A permit's grant: a member of the semaphore's holders ZSET, renewed and released by its id. */
final class PermitGrant implements Grant {

    private final RedisDeployment deployment;
    private final String name;
    private final String id;
    private final String holdersKey;
    private final String channel;
    private final long grantedAtMillis;

    /** @param grantedAtMillis the server's clock when it granted, in milliseconds */
    PermitGrant(RedisDeployment deployment, String name, String id, long grantedAtMillis) {
        this.deployment = deployment;
        this.name = name;
        this.id = id;
        this.holdersKey = deployment.keys().semaphore(name);
        this.channel = deployment.keys().semaphoreChannel(name);
        this.grantedAtMillis = grantedAtMillis;
    }

    /** A permit is never taken over: it is renewed, or it is gone. */
    @Override
    public Renewal renew(Duration leaseTime) {
        long renewed = (Long) this.deployment
                .scripts()
                .eval(
                        SemaphoreScripts.RENEW,
                        "renew a permit of semaphore '" + this.name + "'",
                        List.of(this.holdersKey),
                        List.of(this.id, Long.toString(leaseTime.toMillis())));
        return renewed == 1 ? Renewal.RENEWED : Renewal.GONE;
    }

    @Override
    public long release() {
        return release(this.deployment, this.name, this.id);
    }

    /** Releases permit {@code id} of semaphore {@code name}; -1 if it was not held, else the waiters told. */
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

    @Override
    public long releaseAfter(Duration holdAtLeast) {
        return (Long) this.deployment
                .scripts()
                .eval(
                        SemaphoreScripts.RELEASE_AFTER,
                        "release a permit of semaphore '" + this.name + "'",
                        List.of(this.holdersKey),
                        List.of(
                                this.id,
                                this.channel,
                                this.deployment.signalMode().publishCommand(),
                                Long.toString(this.grantedAtMillis),
                                Long.toString(Durations.ceilMillis(holdAtLeast))));
    }
}
