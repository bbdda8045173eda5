package dev.turnstile.redis.internal;

import dev.turnstile.redis.RedisUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import redis.clients.jedis.UnifiedJedis;

/**
 * A Redlock grant: held while a majority of the masters hold it. Its lease's local deadline is the
 * validity computed at acquisition; renewals and extensions must reach a majority within it.
 */
final class RedlockGrant implements Grant {

    private final RedlockEngine redlock;
    private final String name;
    private final String owner;
    private final Map<UnifiedJedis, Long> grantedAtMillis;
    private final Map<Integer, CompletableFuture<?>> unanswered;

    /**
     * @param grantedAtMillis each granting master's clock when it granted, in milliseconds
     * @param unanswered by master index, the acquire calls that had not answered when it was granted
     */
    RedlockGrant(
            RedlockEngine redlock,
            String name,
            String owner,
            Map<UnifiedJedis, Long> grantedAtMillis,
            Map<Integer, CompletableFuture<?>> unanswered) {
        this.redlock = redlock;
        this.name = name;
        this.owner = owner;
        this.grantedAtMillis = java.util.Collections.unmodifiableMap(new java.util.IdentityHashMap<>(grantedAtMillis));
        this.unanswered = Map.copyOf(unanswered);
    }

    /** Frees, once they complete, the acquire calls still running: they may grant after the release. */
    private void releaseLateGrants() {
        RedlockRelease.releaseWhenDone(this.redlock, this.name, this.owner, this.unanswered);
    }

    /**
     * Renews on every master in parallel, each answer awaited at most the node timeout. Renewed on a
     * majority within the validity: renewed. Refused (gone or held by another owner) by more than
     * a minority: lost for that reason, and freed everywhere. Anything else (masters slow, paused or
     * unreachable): {@link RedisUnavailableException}, so the watchdog tries again until the
     * deadline, as it does on one server.
     */
    @Override
    public Renewal renew(Duration leaseTime) {
        RedlockNodes nodes = this.redlock.nodes();
        List<String> keys = List.of(this.redlock.keys().lock(this.name));
        List<String> args = List.of(this.owner, Long.toString(leaseTime.toMillis()));
        long start = System.nanoTime();
        List<RedlockNodes.Answer<Object>> answers = nodes.runAll(
                LockScripts.RENEW,
                keys,
                master -> args,
                start + this.redlock.nodeTimeout().toNanos(),
                true,
                nodes.size());
        int renewed = 0;
        int gone = 0;
        int takenOver = 0;
        for (RedlockNodes.Answer<Object> answer : answers) {
            if (answer.answered()) {
                long code = (Long) answer.value();
                renewed += code == 1 ? 1 : 0;
                gone += code == 0 ? 1 : 0;
                takenOver += code == -1 ? 1 : 0;
            }
        }
        long elapsed = System.nanoTime() - start;
        boolean valid = leaseTime.toNanos() - elapsed - RedlockLock.drift(leaseTime) > 0;
        if (renewed >= nodes.quorum() && valid) {
            return Renewal.RENEWED;
        }
        if (gone + takenOver > nodes.size() - nodes.quorum()) {
            // A majority can no longer be ours: free what is left, so no master keeps it for nobody.
            RedlockRelease.releaseEverywhere(this.redlock, this.name, this.owner, false);
            return takenOver > 0 ? Renewal.TAKEN_OVER : Renewal.GONE;
        }
        throw new RedisUnavailableException(
                "Could not renew lock '" + this.name + "' on a majority of the Redlock masters in time (" + renewed
                        + " of " + nodes.size() + " renewed" + (valid ? "" : ", too late for the lease") + ")",
                answers.stream()
                        .map(RedlockNodes.Answer::failure)
                        .filter(java.util.Objects::nonNull)
                        .findFirst()
                        .orElseGet(() -> new IllegalStateException("renewed too late")));
    }

    /** A renewal leaves the same drift allowance as the acquisition did. */
    @Override
    public long driftNanos(Duration leaseTime) {
        return RedlockLock.drift(leaseTime);
    }

    /**
     * Releases on every master. Not this owner's any more on more than a minority of them (force-
     * released, expired, taken over): -1, the loss proven, as on one server. Anything else is a
     * release (0), even when only some masters answered in time: the silent ones get the release
     * when they answer, and their key expires with its lease otherwise. No master freed it and too
     * few answered to tell: {@link RedisUnavailableException}.
     */
    @Override
    public long release() {
        releaseLateGrants();
        return RedlockRelease.releaseEverywhere(this.redlock, this.name, this.owner, true)
                .outcome();
    }

    /**
     * Each master that granted keeps the lock until the hold has passed by its own clock. A master
     * whose grant is not known here (its reply came too late) may still hold it: it keeps it until
     * the hold has passed since the latest known grant; a master that holds nothing of this
     * owner's refuses, owner-checked. The answer is judged as {@link #release()}'s.
     */
    @Override
    public long releaseAfter(Duration holdAtLeast) {
        releaseLateGrants();
        List<String> keys = List.of(this.redlock.keys().lock(this.name));
        String channel = this.redlock.keys().lockChannel(this.name);
        String hold = Long.toString(Durations.ceilMillis(holdAtLeast));
        long latestGrant = this.grantedAtMillis.values().stream()
                .mapToLong(Long::longValue)
                .max()
                .orElse(0);
        List<UnifiedJedis> masters = this.redlock.masters();
        return RedlockRelease.releaseEverywhere(
                        this.redlock,
                        this.name,
                        LockScripts.RELEASE_AFTER,
                        keys,
                        master -> List.of(
                                this.owner,
                                channel,
                                "PUBLISH",
                                Long.toString(this.grantedAtMillis.getOrDefault(masters.get(master), latestGrant)),
                                hold),
                        true)
                .outcome();
    }
}
