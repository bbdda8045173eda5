package dev.turnstile.redis.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One permit's grant in Redis as it passes between holders of this process ({@link PermitQueue}):
 * its id, and the bound on how many holders and for how long it serves before it goes back to Redis.
 * It also keeps the holders that passed it on since a call last found it in Redis, so that a later
 * call that finds it gone reports each of them lost. Used by one holder at a time (passes go through
 * the queue's lock).
 */
final class PermitCohort {

    /** Renews a held permit in Redis and reserves fresh tokens for the holders it passes to. */
    @FunctionalInterface
    interface TokenRefresh {

        /**
         * Renews permit {@code permitId} for {@code leaseNanos} and reserves tokens.
         *
         * @return the reserved block, or null if the permit is not to be passed on (no longer held,
         *     or the tokens reached too few replicas)
         * @throws dev.turnstile.redis.TurnstileException if Redis could not be reached: the release
         *     fails with it
         */
        @Nullable
        Reserved refresh(String permitId, long leaseNanos);
    }

    /** How a queue passes a permit on at a holder's release ({@link LocalPlace#passOn(long, long, Runnable)}). */
    @FunctionalInterface
    interface Passer {

        /** Passes {@code cohort}'s permit to a waiter, or returns false: the lease releases it in Redis. */
        boolean passOn(PermitCohort cohort, long deadlineNanos, long leaseNanos, Runnable lostInRedis);
    }

    /**
     * The place of a holder of this permit in a queue: its release asks {@code passer} to pass the
     * permit on; {@code leave} runs (with the waiters told elsewhere) when it ends without a pass.
     */
    LocalPlace place(Passer passer, java.util.function.LongConsumer leave) {
        return new LocalPlace() {
            @Override
            public boolean passOn(long deadlineNanos, long leaseNanos) {
                return passOn(deadlineNanos, leaseNanos, () -> {});
            }

            @Override
            public boolean passOn(long deadlineNanos, long leaseNanos, Runnable lostInRedis) {
                return passer.passOn(PermitCohort.this, deadlineNanos, leaseNanos, lostInRedis);
            }

            @Override
            public void redisAnswered(boolean held) {
                PermitCohort.this.redisAnswered(held);
            }

            @Override
            public void leave(long waitersElsewhere) {
                leave.accept(waitersElsewhere);
            }
        };
    }

    /**
     * Tokens a call to Redis reserved.
     *
     * @param sentNanos {@link System#nanoTime()} before the call was sent
     * @param liveUntilNanos the latest moment the renewed permit is known to live in Redis
     * @param firstToken the first token issued (the next {@code holders - 1} are reserved)
     */
    record Reserved(long sentNanos, long liveUntilNanos, long firstToken) {}

    private final String permitId;
    private final int holders;
    private final long sentNanos;
    private final long grantedAtMillis;
    private final long maxAgeNanos;
    private final TokenRefresh refresh;
    private int holdersLeft;
    /** Reports the loss of each holder that passed the permit on since Redis last confirmed it. */
    private final List<Runnable> unconfirmed = new ArrayList<>();

    /**
     * @param permitId the permit's id in Redis
     * @param holders the most holders this grant serves, the first included; also the tokens each
     *     grant and each refresh reserves
     * @param maxAgeNanos how long after the acquire was sent the permit may still be passed on
     * @param sentNanos {@link System#nanoTime()} before the acquire was sent
     * @param grantedAtMillis the server's clock at the grant
     * @param refresh renews the permit and reserves fresh tokens when those at hand cannot serve the
     *     next waiter
     */
    PermitCohort(
            String permitId,
            int holders,
            long maxAgeNanos,
            long sentNanos,
            long grantedAtMillis,
            TokenRefresh refresh) {
        this.permitId = permitId;
        this.holders = holders;
        this.holdersLeft = holders - 1;
        this.maxAgeNanos = maxAgeNanos;
        this.sentNanos = sentNanos;
        this.grantedAtMillis = grantedAtMillis;
        this.refresh = refresh;
    }

    String permitId() {
        return this.permitId;
    }

    /** Returns the most holders the grant serves: also the tokens each grant and refresh reserves. */
    int holders() {
        return this.holders;
    }

    /** Whether the grant may still serve one more holder at {@code nowNanos}. */
    boolean mayServe(long nowNanos) {
        return this.holdersLeft > 0 && nowNanos - this.sentNanos <= this.maxAgeNanos;
    }

    /** The grant serves one more holder (after {@link #mayServe}, under the queue's lock). */
    void serveOneMore() {
        this.holdersLeft--;
    }

    /**
     * Renews the permit in Redis for {@code leaseNanos} and reserves fresh tokens.
     *
     * @return the reserved block, or null if the permit is not to be passed on
     */
    @Nullable
    Reserved refresh(long leaseNanos) {
        return this.refresh.refresh(this.permitId, leaseNanos);
    }

    /** A holder passed the permit on without asking Redis: report it lost if the permit is found gone. */
    synchronized void passedUnconfirmed(Runnable lostInRedis) {
        this.unconfirmed.add(lostInRedis);
    }

    /**
     * A call to Redis about the permit found it there (the holders before it held it), or gone: then
     * each holder that passed it on since the last confirmation is reported lost.
     */
    void redisAnswered(boolean held) {
        List<Runnable> lost;
        synchronized (this) {
            lost = held ? List.of() : List.copyOf(this.unconfirmed);
            this.unconfirmed.clear();
        }
        lost.forEach(Runnable::run);
    }

    /** The server's clock at {@code nowNanos}, never earlier than the truth (see {@code Cohort}). */
    long serverMillisAt(long nowNanos) {
        return this.grantedAtMillis + TimeUnit.NANOSECONDS.toMillis(nowNanos - this.sentNanos + 999_999);
    }
}
