package dev.turnstile.redis.internal;

import java.time.Duration;
import java.util.List;

/**
 * A permit's grant: a member of the semaphore's holders ZSET, renewed and released by its id. A
 * fair semaphore's release hands the freed permit to the head of its queue in the same script.
 */
final class PermitGrant implements Grant {

    private final RedisDeployment deployment;
    private final String name;
    private final String id;
    private final String holdersKey;
    private final String channel;
    private final long grantedAtMillis;
    /** The limit of a fair semaphore, whose release serves its queue; 0 for an unfair one. */
    private final int fairLimit;

    /** @param grantedAtMillis the server's clock when it granted, in milliseconds */
    PermitGrant(RedisDeployment deployment, String name, String id, long grantedAtMillis) {
        this(deployment, name, id, grantedAtMillis, 0);
    }

    /**
     * A permit of a fair semaphore of {@code limit} permits, whose release hands the permit to the
     * head of the queue.
     *
     * @param grantedAtMillis the server's clock when it granted, in milliseconds
     */
    static PermitGrant fair(RedisDeployment deployment, String name, String id, long grantedAtMillis, int limit) {
        return new PermitGrant(deployment, name, id, grantedAtMillis, limit);
    }

    private PermitGrant(RedisDeployment deployment, String name, String id, long grantedAtMillis, int fairLimit) {
        this.fairLimit = fairLimit;
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
        return this.fairLimit > 0
                ? releaseFair(this.deployment, this.name, this.id, this.fairLimit)
                : release(this.deployment, this.name, this.id);
    }

    /**
     * Releases permit {@code id} of fair semaphore {@code name} and hands the free permits to the
     * head of its queue. Returns -1 if the permit was not held, else the waiters told.
     */
    static long releaseFair(RedisDeployment deployment, String name, String id, int limit) {
        List<?> reply = (List<?>) Uninterrupted.call(() -> deployment
                .scripts()
                .eval(
                        SemaphoreScripts.RELEASE_FAIR,
                        "release a permit of fair semaphore '" + name + "'",
                        fairKeys(deployment.keys(), name),
                        fairArgs(deployment, name, id, limit, "0", "0", "0", "0", "1")));
        return (Long) reply.get(0);
    }

    /** The keys of a fair semaphore's scripts: holders, fence, queue, alive, ticket counter. */
    static List<String> fairKeys(RedisKeys keys, String name) {
        return List.of(
                keys.semaphore(name),
                keys.semaphoreFence(name),
                keys.semaphoreQueue(name),
                keys.semaphoreQueueAlive(name),
                keys.semaphoreTicket(name));
    }

    /**
     * The arguments of a fair semaphore's scripts: permit id, limit, lease ms, fence ttl ms, waiter
     * ttl ms, stay queued (1 or 0), release channel, publish command, tokens to reserve.
     */
    static List<String> fairArgs(
            RedisDeployment deployment,
            String name,
            String id,
            int limit,
            String leaseMillis,
            String fenceTtlMillis,
            String waiterTtlMillis,
            String staysQueued,
            String reserve) {
        return List.of(
                id,
                Integer.toString(limit),
                leaseMillis,
                fenceTtlMillis,
                waiterTtlMillis,
                staysQueued,
                deployment.keys().semaphoreChannel(name),
                deployment.signalMode().publishCommand(),
                reserve);
    }

    /** Releases permit {@code id} of semaphore {@code name}; -1 if it was not held, else the waiters told. */
    static long release(RedisDeployment deployment, String name, String id) {
        return (Long) Uninterrupted.call(() -> deployment
                .scripts()
                .eval(
                        SemaphoreScripts.RELEASE,
                        "release a permit of semaphore '" + name + "'",
                        List.of(deployment.keys().semaphore(name)),
                        List.of(
                                id,
                                deployment.keys().semaphoreChannel(name),
                                deployment.signalMode().publishCommand())));
    }

    @Override
    public long releaseAfter(Duration holdAtLeast) {
        return (Long) Uninterrupted.call(() -> this.deployment
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
                                Long.toString(Durations.ceilMillis(holdAtLeast)))));
    }
}
