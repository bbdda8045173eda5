package dev.turnstile.redis.internal;

import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.RedisUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A lease on one lock name: the cohort's owner token in Redis, renewed and released owner-checked.
 * On release it passes the grant to the next thread of this process that queues for the name, while
 * the cohort allows it; otherwise it releases in Redis.
 */
final class LockLease extends ManagedLease {

    /** A grant is passed on only while this much of it is left (at most): less, and it goes back to Redis. */
    private static final long MIN_LEFT_TO_PASS_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** Returns how much of a grant must be left to pass it on to a holder whose lease is {@code leaseNanos}. */
    static long minLeftToPass(long leaseNanos) {
        return Math.min(MIN_LEFT_TO_PASS_NANOS, leaseNanos / 10);
    }

    private final RedisDeployment deployment;
    private final String key;
    private final String channel;
    private final Cohort cohort;
    private final LocalGates.Gate gate;
    private final long grantedAtMillis;
    private final boolean passedTo;
    /** Set once this lease passed its grant on: it never touches Redis with the shared owner token again. */
    private volatile boolean passedOn;

    /** A lease granted in Redis; it starts a cohort. */
    LockLease(
            RedisDeployment deployment,
            String name,
            Cohort cohort,
            long fencingToken,
            long grantedAtMillis,
            Duration leaseTime,
            boolean renewedByWatchdog,
            long sentNanos,
            LocalGates.Gate gate) {
        super(deployment.leases(), LeaseKind.LOCK, name, fencingToken, leaseTime, renewedByWatchdog, sentNanos);
        this.deployment = deployment;
        this.key = gate.lockKey;
        this.channel = gate.channel;
        this.cohort = cohort;
        this.gate = gate;
        this.grantedAtMillis = grantedAtMillis;
        this.passedTo = false;
    }

    /**
     * A lease on a grant passed on by the previous holder: held until its own lease ends, but no
     * longer than the key is known to live; a watchdog lease renews and a fixed one is topped up
     * before that.
     */
    LockLease(
            RedisDeployment deployment,
            String name,
            HandOff handOff,
            Duration leaseTime,
            boolean renewedByWatchdog,
            LocalGates.Gate gate) {
        super(
                deployment.leases(),
                LeaseKind.LOCK,
                name,
                handOff.fencingToken(),
                leaseTime,
                renewedByWatchdog,
                Math.min(handOff.handedNanos() + leaseTime.toNanos(), handOff.keyDeadlineNanos()),
                handOff.handedNanos() + leaseTime.toNanos());
        this.deployment = deployment;
        this.key = gate.lockKey;
        this.channel = gate.channel;
        this.cohort = handOff.cohort();
        this.gate = gate;
        this.grantedAtMillis = handOff.cohort().serverMillisAt(handOff.handedNanos());
        this.passedTo = true;
    }

    @Override
    protected RenewalOutcome renewInRedis(Duration leaseTime) {
        if (this.passedOn) {
            return RenewalOutcome.GONE; // the grant is the next holder's now: never touch it
        }
        return renew(this.deployment, name(), this.cohort.ownerToken(), leaseTime);
    }

    @Override
    protected long releaseInRedis() {
        if (this.passedOn) {
            return -1;
        }
        return release(this.deployment, name(), this.key, this.channel, this.cohort.ownerToken());
    }

    /** Passes the grant to the next local holder when one queues and the cohort allows; else releases. */
    @Override
    protected long releaseForNext() {
        long now = System.nanoTime();
        if (deadlineNanos() - now > minLeftToPass(leaseTimeNanos()) && this.gate.hasQueuedThreads()) {
            long token = this.cohort.takeToken(now);
            if (token > 0) {
                this.passedOn = true; // before the hand-off: from then on this lease must not free the grant
                if (this.gate.handOff(new HandOff(this.cohort, token, deadlineNanos(), now))) {
                    return 0;
                }
                this.passedOn = false;
            }
        }
        return releaseInRedis();
    }

    /** Under {@code minReplicas} the new time to live waits for the replicas too, as the grant did. */
    @Override
    protected long releaseInRedisAfter(Duration holdAtLeast) {
        String operation = "release lock '" + name() + "'";
        List<String> keys = List.of(this.key);
        List<String> args = List.of(
                this.cohort.ownerToken(),
                this.channel,
                this.deployment.signalMode().publishCommand(),
                Long.toString(this.grantedAtMillis),
                Long.toString(RedlockLease.ceilMillis(holdAtLeast)));
        int minReplicas = this.deployment.options().minReplicas();
        if (minReplicas == 0) {
            return (Long) this.deployment.scripts().eval(LockScripts.RELEASE_AFTER, operation, keys, args);
        }
        ScriptRunner.Replicated replicated =
                this.deployment.scripts().evalReplicated(LockScripts.RELEASE_AFTER, operation, keys, args);
        long code = (Long) replicated.reply();
        if (code == 0 && replicated.replicas() < minReplicas) {
            // Kept on the master only: after a failover the lock may come free before the hold ends.
            throw new RedisUnavailableException(
                    "The hold of lock '" + name() + "' for " + Durations.format(holdAtLeast)
                            + " after its grant reached only " + replicated.replicas() + " of the " + minReplicas
                            + " replicas required (minReplicas); a failover now could free the lock before the"
                            + " hold ends",
                    new IllegalStateException("WAIT " + minReplicas + " answered " + replicated.replicas()));
        }
        return code;
    }

    /**
     * A lost lease that was passed on may sit on a key whose time to live is longer than its own
     * lease: free it (owner-checked, off the deadline thread), so others wait no longer than the
     * holder's lease.
     */
    @Override
    protected void onLoss() {
        if (this.passedTo) {
            this.deployment.leases().watchdog().execute(() -> {
                try {
                    releaseInRedis();
                } catch (RuntimeException unreachable) {
                    // it expires by its time to live
                }
            });
        }
    }

    @Override
    protected void ended(long waitersElsewhere) {
        if (!this.passedOn) {
            this.gate.exit(waitersElsewhere);
        }
    }

    /**
     * Renews (or extends) the grant. Under {@code minReplicas} the renewal must reach that many
     * replicas too, as the grant did; when it does not, the lease keeps its previous deadline and
     * {@link RedisUnavailableException} says why (the watchdog tries again until the deadline).
     */
    static RenewalOutcome renew(RedisDeployment deployment, String name, String ownerToken, Duration leaseTime) {
        String operation = "renew lock '" + name + "'";
        List<String> keys = List.of(deployment.keys().lock(name));
        List<String> args = List.of(ownerToken, Long.toString(leaseTime.toMillis()));
        long code;
        if (deployment.options().minReplicas() > 0) {
            ScriptRunner.Replicated replicated =
                    deployment.scripts().evalReplicated(LockScripts.RENEW, operation, keys, args);
            code = (Long) replicated.reply();
            if (code == 1 && replicated.replicas() < deployment.options().minReplicas()) {
                throw new RedisUnavailableException(
                        "The renewal of lock '" + name + "' reached only " + replicated.replicas() + " of the "
                                + deployment.options().minReplicas()
                                + " replicas required (minReplicas); the lease keeps its"
                                + " previous deadline",
                        new IllegalStateException(
                                "WAIT " + deployment.options().minReplicas() + " answered " + replicated.replicas()));
            }
        } else {
            code = (Long) deployment.scripts().eval(LockScripts.RENEW, operation, keys, args);
        }
        return code == 1 ? RenewalOutcome.RENEWED : code == 0 ? RenewalOutcome.GONE : RenewalOutcome.TAKEN_OVER;
    }

    static long release(RedisDeployment deployment, String name, String key, String channel, String ownerToken) {
        return (Long) deployment
                .scripts()
                .eval(
                        LockScripts.RELEASE,
                        "release lock '" + name + "'",
                        List.of(key),
                        List.of(ownerToken, channel, deployment.signalMode().publishCommand()));
    }
}
