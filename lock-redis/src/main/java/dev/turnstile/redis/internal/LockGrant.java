package dev.turnstile.redis.internal;

import dev.turnstile.redis.RedisUnavailableException;
import java.time.Duration;
import java.util.List;

/**
 * A lock's grant on one Redis deployment: the owner token in the lock key, renewed and released
 * owner-checked. Under {@code minReplicas} a renewal and a hold must reach that many replicas, as
 * the grant did. The holders of one lock cohort share the owner token; each has its own grant.
 *
 * @param gate the name's local gate, which holds its keys and the words that name its calls
 * @param grantedAtMillis the server's clock at the grant (or at the hand-off), in milliseconds
 */
record LockGrant(RedisDeployment deployment, String name, LocalGates.Gate gate, String ownerToken, long grantedAtMillis)
        implements Grant {

    /**
     * Renews (or extends) the grant. When it reaches too few replicas, the lease keeps its previous
     * deadline and {@link RedisUnavailableException} says why (the watchdog tries again until the
     * deadline).
     */
    @Override
    public Renewal renew(Duration leaseTime) {
        String operation = this.gate.renewOperation;
        List<String> keys = this.gate.ownerKeys;
        List<String> args = List.of(this.ownerToken, Long.toString(leaseTime.toMillis()));
        int minReplicas = this.deployment.options().minReplicas();
        long code;
        if (minReplicas > 0) {
            ScriptRunner.Replicated replicated =
                    this.deployment.scripts().evalReplicated(LockScripts.RENEW, operation, keys, args);
            code = (Long) replicated.reply();
            if (code == 1 && replicated.replicas() < minReplicas) {
                throw tooFewReplicas(
                        "The renewal of lock '" + this.name + "'",
                        "the lease keeps its previous deadline",
                        replicated.replicas());
            }
        } else {
            code = (Long) this.deployment.scripts().eval(LockScripts.RENEW, operation, keys, args);
        }
        return code == 1
                ? Renewal.RENEWED
                : code == 0 ? Renewal.GONE : code == -2 ? Renewal.FORCE_RELEASED : Renewal.TAKEN_OVER;
    }

    @Override
    public long release() {
        return release(this.deployment, this.gate, this.ownerToken);
    }

    /**
     * Releases {@code ownerToken}'s grant of the lock of {@code gate}; -1 if not held by it (-2 if a
     * forced release took it from this owner), else the waiters told.
     *
     * <p>The release script is given the lock key and the owner token alone (and {@code SPUBLISH}
     * where signals are sharded; the channel is the lock key), the least a release needs: only a release that finds the lock no longer
     * its owner's reads the forced-release marker, in a second call. The marker keeps the token for
     * what was left of the lease, so a release that comes within that second call's round trip of
     * the lease's end may report an expiry where a forced release took the lock; and when the second
     * call fails, the answer is -1 too: the script has already shown that the lease is lost, and the
     * loss is reported either way.
     */
    static long release(RedisDeployment deployment, LocalGates.Gate gate, String ownerToken) {
        long told = free(deployment, gate, ownerToken);
        if (told == -1 && forcedFrom(deployment, gate, ownerToken)) {
            return FORCED_FROM_OWNER;
        }
        return told;
    }

    /**
     * Frees {@code ownerToken}'s grant of the lock of {@code gate}, for a caller that does not ask
     * why it was no longer held (a failed acquire's clean-up): -1 if not held by it, else the
     * waiters told.
     */
    static long free(RedisDeployment deployment, LocalGates.Gate gate, String ownerToken) {
        List<String> args = deployment.signalMode().sharded() ? List.of(ownerToken, "SPUBLISH") : List.of(ownerToken);
        return (Long) Uninterrupted.call(
                () -> deployment.scripts().eval(LockScripts.RELEASE, gate.releaseOperation, gate.lockKeys, args));
    }

    /**
     * Whether the forced-release marker of {@code gate}'s lock holds {@code ownerToken}; false when
     * it cannot be read.
     */
    private static boolean forcedFrom(RedisDeployment deployment, LocalGates.Gate gate, String ownerToken) {
        try {
            String marker = Uninterrupted.call(
                    () -> deployment.scripts().call(gate.releaseOperation, redis -> redis.get(gate.forceReleasedKey)));
            return ownerToken.equals(marker);
        } catch (RuntimeException unreachable) {
            return false;
        }
    }

    /** Under {@code minReplicas} the new time to live waits for the replicas too, as the grant did. */
    @Override
    public long releaseAfter(Duration holdAtLeast) {
        String operation = this.gate.releaseOperation;
        List<String> keys = this.gate.ownerKeys;
        List<String> args = List.of(
                this.ownerToken,
                this.gate.channel,
                this.deployment.signalMode().publishCommand(),
                Long.toString(this.grantedAtMillis),
                Long.toString(Durations.ceilMillis(holdAtLeast)));
        if (this.deployment.options().minReplicas() == 0) {
            return (Long) Uninterrupted.call(
                    () -> this.deployment.scripts().eval(LockScripts.RELEASE_AFTER, operation, keys, args));
        }
        ScriptRunner.Replicated replicated = Uninterrupted.call(
                () -> this.deployment.scripts().evalReplicated(LockScripts.RELEASE_AFTER, operation, keys, args));
        long code = (Long) replicated.reply();
        if (code == 0 && replicated.replicas() < this.deployment.options().minReplicas()) {
            // Kept on the master only: after a failover the lock may come free before the hold ends.
            throw tooFewReplicas(
                    "The hold of lock '" + this.name + "' for " + Durations.format(holdAtLeast) + " after its grant",
                    "a failover now could free the lock before the hold ends",
                    replicated.replicas());
        }
        return code;
    }

    private RedisUnavailableException tooFewReplicas(String what, String consequence, long replicas) {
        int minReplicas = this.deployment.options().minReplicas();
        return new RedisUnavailableException(
                what + " reached only " + replicas + " of the " + minReplicas + " replicas required (minReplicas); "
                        + consequence,
                new IllegalStateException("WAIT " + minReplicas + " answered " + replicas));
    }
}
