package dev.turnstile.redis.internal;

import dev.turnstile.redis.RedisUnavailableException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Owner-checked releases of a Redlock lock on its masters: on every master at once (an owner's
 * release, a failed acquire's clean-up), and on a master whose acquire call is still running once
 * it completes (it may grant after a release sent now).
 */
final class RedlockRelease {

    private RedlockRelease() {}

    /**
     * Frees {@code name} for {@code owner}, owner-checked on its master, once each call in {@code
     * calls} (by master index) that is still running completes: it may grant after a release sent
     * from now on. Call it before sending that release; a call already complete granted before it.
     */
    static void releaseWhenDone(
            RedlockEngine redlock, String name, String owner, Map<Integer, CompletableFuture<?>> calls) {
        calls.forEach((index, call) -> {
            if (!call.isDone()) {
                UnifiedJedis master = redlock.masters().get(index);
                redlock.nodes().afterCall(index, call, () -> releaseOn(redlock, master, name, owner));
            }
        });
    }

    private static long releaseOn(RedlockEngine redlock, UnifiedJedis master, String name, String owner) {
        try {
            return (Long) LockScripts.RELEASE.run(master, List.of(redlock.keys().lock(name)), List.of(owner));
        } catch (JedisException unreachable) {
            return -2L;
        }
    }

    /**
     * Owner-checked release on every master, in parallel.
     *
     * @param failIfUnreachable whether to throw when no master could be reached to free it (an
     *     owner's release); a failed acquire's clean-up never throws
     */
    static Released releaseEverywhere(RedlockEngine redlock, String name, String owner, boolean failIfUnreachable) {
        List<String> keys = List.of(redlock.keys().lock(name));
        List<String> args = List.of(owner);
        return releaseEverywhere(redlock, name, LockScripts.RELEASE, keys, master -> args, failIfUnreachable);
    }

    /**
     * Runs an owner-checked release script on every master, in parallel, with each master's
     * arguments, each answer awaited at most the node timeout.
     *
     * @param failIfUnreachable whether to throw {@link RedisUnavailableException} when no master
     *     freed it and too few answered to prove it was no longer this owner's
     */
    static Released releaseEverywhere(
            RedlockEngine redlock,
            String name,
            LuaScript release,
            List<String> keys,
            IntFunction<List<String>> args,
            boolean failIfUnreachable) {
        // Bounded: a master that does not answer in time keeps the key until its TTL, and the
        // release, still queued for it, frees it when it can.
        List<RedlockNodes.Answer<Object>> answers = redlock.nodes()
                .runAll(
                        release,
                        keys,
                        args,
                        System.nanoTime() + redlock.nodeTimeout().toNanos(),
                        false,
                        redlock.masterCount());
        int freed = 0;
        int notOwner = 0;
        for (RedlockNodes.Answer<Object> answer : answers) {
            if (answer.answered()) {
                freed += (Long) answer.value() >= 0 ? 1 : 0;
                notOwner += (Long) answer.value() < 0 ? 1 : 0;
            }
        }
        Released released = new Released(freed, notOwner, answers.size());
        if (failIfUnreachable && freed == 0 && !released.lossProven()) {
            throw new RedisUnavailableException(
                    "Could not reach the Redlock masters holding lock '" + name + "' (" + notOwner + " of "
                            + answers.size() + " answered, none held it); it expires by its TTL there",
                    answers.stream()
                            .map(RedlockNodes.Answer::failure)
                            .filter(Objects::nonNull)
                            .findFirst()
                            .orElseGet(() -> new IllegalStateException("unreachable masters")));
        }
        return released;
    }

    /**
     * What a release on every master found.
     *
     * @param freed how many masters held it for this owner (and freed it, or kept it for a hold)
     * @param notOwner how many answered that they did not hold it for this owner
     * @param masters how many masters there are
     */
    record Released(int freed, int notOwner, int masters) {

        /**
         * Whether the answers prove that this owner no longer held it on a majority: more than a
         * minority answered "not this owner's" (as a renewal judges it). Masters that did not answer
         * prove nothing: a release freed on fewer than a majority, with the others silent, is no
         * proof of a loss.
         */
        boolean lossProven() {
            return this.notOwner > this.masters - (this.masters / 2 + 1);
        }

        /** The answer of an owner's release: -1 when the loss is proven, else 0. */
        long outcome() {
            return lossProven() ? -1 : 0;
        }
    }
}
