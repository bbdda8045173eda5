package dev.turnstile.redis.internal;

import dev.turnstile.redis.internal.FairWaiters.Parked;
import dev.turnstile.redis.internal.FairWaiters.Waiter;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * One fair semaphore's waiting threads in this process, kept in arrival order across processes
 * while its permits pass between them without Redis.
 *
 * <p>Every waiter has its ticket in Redis's queue: a thread that arrives joins the next call this
 * process makes for the semaphore ({@link FairQueueCall}), one at a time, sent on an arrival, a
 * release signal, a waiter leaving, or every {@code WAITER_TTL / 3} to keep the places alive.
 *
 * <p>Each call also answers the <em>bound</em>: the lowest ticket of another process's waiter, or
 * the next ticket when none queues. A holder's release passes its permit to the waiter of this
 * process with the lowest ticket, without Redis, only if that ticket is below the bound: then every
 * waiter ahead of it in Redis's queue is of this process (and was served before it, here), and any
 * waiter that arrives later, anywhere, gets a higher ticket. So a local pass never overtakes another
 * process's waiter: arrival order holds across processes. The receiver uses the token reserved for
 * it when it arrived (every token issued before it began to wait is below it). The pass keeps the
 * permit's id and expiry in Redis (the count of holders is Redis's), within the cohort's bounds
 * (holders and age, {@link PermitCohort}) and with enough of the lease left; otherwise the permit is
 * released in Redis, which hands it to the head of the queue. A waiter served here leaves Redis's
 * queue with the next call; a permit handed to it meanwhile is freed by that call.
 */
final class FairPermitQueue {

    private final RedisDeployment deployment;
    private final String name;
    private final int limit;
    private final long keepAliveNanos;
    private final String channel;

    private final FairGrants grants;
    private final ReentrantLock lock = new ReentrantLock();
    private final FairWaiters waiters = new FairWaiters();
    private boolean syncing;
    /** Whether the next call looks for permits handed to the waiting members (a signal came). */
    private boolean checkHands = true;

    private boolean syncWanted;
    private boolean watched;
    /** Set when a call is due and nobody is making it: wakes the watching thread too. */
    private volatile boolean callWanted;
    /** When the last call that looked for lapsed places was sent. */
    private long lastPlacesNanos = System.nanoTime();
    /** When the last call that was answered was sent ({@link System#nanoTime()}). */
    private long lastAnswerNanos = System.nanoTime();

    private long seenGeneration;
    /** The signals the watcher has acted on (asked for a call). */
    private long actedGeneration;

    private ReleaseSignals.@Nullable Subscription subscription;
    /** Guarded by the map's compute in {@link PermitQueues}: threads waiting here. */
    int users;

    FairPermitQueue(RedisDeployment deployment, String name, int limit, long keepAliveNanos) {
        this.deployment = deployment;
        this.name = name;
        this.limit = limit;
        this.keepAliveNanos = keepAliveNanos;
        this.channel = deployment.keys().semaphoreChannel(name);
        this.grants = new FairGrants(deployment, name, limit);
    }

    String name() {
        return this.name;
    }

    FairGrants grants() {
        return this.grants;
    }

    /**
     * Waits in arrival order for a permit until {@code deadlineNanos}.
     *
     * @return a {@link ManagedLease} granted in Redis, a {@link PermitQueue.PermitHandOff} passed on
     *     by a holder of this process, or null if the deadline passed first (the place is left)
     * @throws InterruptedException if interrupted while waiting (the place is left; nothing held)
     * @throws dev.turnstile.redis.TurnstileException if this thread's call to Redis failed (the
     *     place is left)
     */
    @Nullable
    Object await(String id, LeaseTerms terms, long deadlineNanos) throws InterruptedException {
        Waiter me = new Waiter(id, terms);
        this.lock.lock();
        try {
            this.waiters.arrive(me);
            if (this.subscription == null) {
                this.subscription = this.deployment.signals().subscribe(this.channel);
            }
        } finally {
            this.lock.unlock();
        }
        try {
            return waitFor(me, deadlineNanos);
        } catch (InterruptedException | RuntimeException e) {
            Object outcome = leave(me);
            if (outcome != null) {
                // Served meanwhile: give it back, as a release would.
                this.grants.giveBack(me.id, outcome);
            }
            throw e;
        }
    }

    private @Nullable Object waitFor(Waiter me, long deadlineNanos) throws InterruptedException {
        while (true) {
            boolean sync = false;
            boolean watch = false;
            this.lock.lock();
            try {
                if (me.outcome != null) {
                    // This thread no longer watches nor calls: another one does, if needed.
                    if (!this.watched || !this.syncing && syncDue()) {
                        wakeAnother(me);
                    }
                    return me.outcome;
                }
                if (deadlineNanos - System.nanoTime() <= 0) {
                    break;
                }
                if (!this.syncing && syncDue()) {
                    this.syncing = true;
                    this.callWanted = false;
                    sync = true;
                } else if (!this.watched) {
                    this.watched = true;
                    watch = true;
                }
            } finally {
                this.lock.unlock();
            }
            if (sync) {
                sync(me);
            } else if (watch) {
                watch(me, deadlineNanos);
            } else {
                LockSupport.parkNanos(this, deadlineNanos - System.nanoTime());
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        }
        return leave(me);
    }

    /** Waits for a release signal (then a call is due) or the keep-alive, as the one watching thread. */
    private void watch(Waiter me, long deadlineNanos) throws InterruptedException {
        ReleaseSignals.Subscription subscription = this.subscription;
        try {
            long timeout = Math.min(deadlineNanos - System.nanoTime(), this.keepAliveNanos);
            boolean confirmed = subscription.generationOnceConfirmed() == this.seenGeneration;
            if (!confirmed) {
                timeout = Math.min(timeout, TimeUnit.MILLISECONDS.toNanos(50));
            }
            // A signal already acted on (a call is due or in flight for it) does not wake it again.
            long seen = Math.max(this.seenGeneration, this.actedGeneration);
            boolean signalled =
                    timeout > 0 && subscription.await(seen, timeout, () -> me.outcome != null || this.callWanted);
            this.lock.lock();
            try {
                if (signalled) {
                    this.actedGeneration = subscription.generation();
                }
                if (signalled || me.outcome == null && deadlineNanos - System.nanoTime() > 0) {
                    this.syncWanted = true;
                    this.checkHands = true;
                }
            } finally {
                this.lock.unlock();
            }
        } finally {
            this.lock.lock();
            try {
                this.watched = false;
                if (me.outcome != null) {
                    wakeAnother(me); // someone else watches now
                }
            } finally {
                this.lock.unlock();
            }
        }
    }

    /** Whether a call is due: arrivals, leavers, or a signal or keep-alive asked for one. Under the lock. */
    private boolean syncDue() {
        return this.waiters.callDue() || this.syncWanted;
    }

    /** Wakes a waiter other than {@code me}, to make a due call or to watch. Under the lock. */
    private void wakeAnother(@Nullable Waiter me) {
        Waiter other = this.waiters.other(me);
        if (other != null) {
            // The watching thread wakes for it too: it may be the one woken.
            this.callWanted = !this.syncing && syncDue();
            LockSupport.unpark(other.thread);
        } else if (!this.syncing && syncDue()) {
            callInBackground(0, 3); // nobody waits here any more to make the call
        }
    }

    /**
     * Makes the due call on the watchdog's I/O thread after {@code delayNanos}, if it is still due
     * and nobody makes it; a failed one is tried again a second later, {@code attempts} times in all,
     * so that members that left and permits parked here reach Redis.
     */
    private void callInBackground(long delayNanos, int attempts) {
        try {
            this.deployment
                    .leases()
                    .watchdog()
                    .schedule(
                            () -> {
                                this.lock.lock();
                                try {
                                    if (this.syncing || !syncDue()) {
                                        return;
                                    }
                                    this.syncing = true;
                                    this.callWanted = false;
                                } finally {
                                    this.lock.unlock();
                                }
                                try {
                                    sync(null);
                                } catch (RuntimeException e) {
                                    if (attempts > 1) {
                                        callInBackground(TimeUnit.SECONDS.toNanos(1), attempts - 1);
                                    }
                                }
                            },
                            delayNanos);
        } catch (IllegalStateException closed) {
            // nothing calls Redis any more: the places left lapse after the waiter ttl
        }
    }

    /** Leaves the queue; returns what this waiter was given meanwhile, if anything. */
    private @Nullable Object leave(Waiter me) {
        this.lock.lock();
        try {
            Object outcome = this.waiters.leave(me);
            wakeAnother(me);
            return outcome;
        } finally {
            this.lock.unlock();
        }
    }

    /**
     * Makes one call for every waiter here; the caller set {@link #syncing}.
     *
     * @param caller the waiter making it, which makes the next one too if it is still due and the
     *     caller still waits; null on the watchdog's thread
     */
    private void sync(@Nullable Waiter caller) {
        FairWaiters.Batch batch;
        List<String> left;
        boolean hands;
        boolean places;
        this.lock.lock();
        try {
            batch = this.waiters.takeBatch();
            left = this.waiters.takeLeaving();
            // A permit is handed in Redis only by a script that signals: look for hands when a
            // signal came since the last call (or nothing says none did).
            hands = this.checkHands || this.subscription == null;
            // Places not renewed for half the waiter ttl may have lapsed: look for them too.
            // and, once per keep-alive, for places lost in Redis some other way (a failover, a clock
            // step, an eviction): a member whose place is gone queues again.
            long now = System.nanoTime();
            places = now - this.lastAnswerNanos > this.keepAliveNanos * 3 / 2
                    || now - this.lastPlacesNanos > this.keepAliveNanos;
            this.checkHands = false;
            this.syncWanted = false;
            if (this.subscription != null) {
                long generation = this.subscription.generation();
                hands |= generation != this.seenGeneration;
                this.seenGeneration = generation;
            }
        } finally {
            this.lock.unlock();
        }
        long sentNanos = System.nanoTime();
        FairQueueCall.Answer answer;
        List<Parked> release;
        try {
            answer = new FairQueueCall(
                            left,
                            batch.arriving().stream()
                                    .map(waiter -> waiter.member)
                                    .toList(),
                            batch.waiting().stream()
                                    .map(waiter -> waiter.member)
                                    .toList(),
                            places ? "2" : hands ? "1" : "0",
                            FairWaiters.longestLease(batch))
                    .send(
                            this.deployment,
                            this.name,
                            this.limit,
                            TimeUnit.NANOSECONDS.toMillis(this.keepAliveNanos * 3));
        } catch (RuntimeException e) {
            this.lock.lock();
            try {
                this.waiters.callFailed(left, batch);
                this.checkHands = true;
                this.syncing = false;
                release = this.waiters.takeParked();
            } finally {
                this.lock.unlock();
            }
            release.forEach(permit -> this.grants.giveBack(permit.cohort(), permit.deadlineNanos()));
            throw e;
        }
        List<Waiter> wake;
        this.lock.lock();
        try {
            this.syncing = false; // first: a grant that throws leaves no call stuck in flight
            wake = this.waiters.answered(
                    answer, waiter -> this.grants.granted(waiter, sentNanos, answer.serverMillis(), this::place));
            this.lastAnswerNanos = sentNanos;
            if (places) {
                this.lastPlacesNanos = sentNanos;
            }
            release = this.waiters.passParked(wake);
            if (syncDue() && (caller == null || caller.outcome != null)) {
                wakeAnother(caller);
            }
        } finally {
            this.lock.unlock();
        }
        wake.forEach(waiter -> LockSupport.unpark(waiter.thread));
        release.forEach(permit -> this.grants.giveBack(permit.cohort(), permit.deadlineNanos()));
    }

    /**
     * The place of a holder of {@code cohort}'s permit: its release passes the permit to the waiter
     * here with the lowest ticket when that ticket is below the bound and the cohort may serve one
     * more; otherwise the lease releases it in Redis.
     */
    LocalPlace place(PermitCohort cohort) {
        return cohort.place(this::passOn, told -> {});
    }

    private boolean passOn(PermitCohort cohort, long deadlineNanos, long leaseNanos, Runnable lostInRedis) {
        long now = System.nanoTime();
        if (deadlineNanos - now <= LocalGates.minLeftToPass(leaseNanos)) {
            return false;
        }
        Waiter next;
        this.lock.lock();
        try {
            if (!cohort.mayServe(now)) {
                return false;
            }
            next = this.waiters.nextInTurn();
            if (next == null) {
                if (this.waiters.anyTicketed() || !this.waiters.ticketing(this.syncing)) {
                    return false; // another process's waiter is next, or nobody waits here
                }
                // Waiters here are getting their tickets: the permit waits for the answer.
                cohort.passedUnconfirmed(lostInRedis);
                this.waiters.park(new Parked(cohort, deadlineNanos, leaseNanos));
                return true;
            }
            cohort.passedUnconfirmed(lostInRedis);
            this.waiters.handTo(next, cohort, deadlineNanos, now);
        } finally {
            this.lock.unlock();
        }
        LockSupport.unpark(next.thread);
        return true;
    }

    /** Closes the subscription once nobody waits (the last user left). */
    void closeIfIdle() {
        this.lock.lock();
        try {
            if (this.subscription != null) {
                this.subscription.close();
                this.subscription = null;
            }
        } finally {
            this.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "fair permit queue '" + this.name + "'";
    }
}
