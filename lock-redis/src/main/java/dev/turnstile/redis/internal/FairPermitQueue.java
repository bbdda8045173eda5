package dev.turnstile.redis.internal;

import dev.turnstile.redis.LeaseKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * One fair semaphore's waiting threads in this process, kept in arrival order across processes
 * while its permits pass between them without Redis.
 *
 * <p>Every waiter has its ticket in Redis's queue, as before: a thread that arrives joins the
 * next call this process makes for the semaphore ({@link SemaphoreScripts#SYNC_FAIR}), which takes
 * a ticket for each thread that arrived since the last one, reserves a fencing token for each,
 * renews the liveness of all, and takes the permits Redis grants or handed to them. One such call
 * is in flight at a time; it is sent on a new arrival, on a release signal (a permit was freed or
 * handed in Redis), on the waiter that keeps the places alive every {@code WAITER_TTL / 3}, and
 * when a waiter leaves.
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

    /** The most arrivals one call takes tickets for. */
    private static final int MAX_ARRIVALS = 256;

    /** One waiting thread. Guarded by the queue's lock, but {@link #outcome} is read without it. */
    private static final class Waiter {

        private final Thread thread = Thread.currentThread();
        private final String id;
        private final String member;
        private final LeaseTerms terms;
        private long ticket;
        private long token;
        private volatile @Nullable Object outcome;
        private boolean gone;

        Waiter(String id, LeaseTerms terms) {
            this.id = id;
            this.member = id + "/" + terms.millis();
            this.terms = terms;
        }
    }

    private final RedisDeployment deployment;
    private final String name;
    private final int limit;
    private final long keepAliveNanos;
    private final String channel;

    private final ReentrantLock lock = new ReentrantLock();
    private final List<Waiter> arrivals = new ArrayList<>();
    private final TreeMap<Long, Waiter> ticketed = new TreeMap<>();
    private final Map<String, Waiter> sent = new HashMap<>();
    private final List<String> leaving = new ArrayList<>();
    /**
     * A permit a holder released while no waiter here had a ticket yet but some were getting one:
     * kept for them until the call in flight answers (then passed on, or released in Redis).
     */
    private record Parked(PermitCohort cohort, long deadlineNanos, long leaseNanos) {}

    private final List<Parked> parked = new ArrayList<>();
    private long bound;
    private boolean syncing;
    /** Whether the next call looks for permits handed to the waiting members (a signal came). */
    private boolean checkHands = true;

    private boolean syncWanted;
    private boolean watched;
    /** When the last call that was answered was sent ({@link System#nanoTime()}). */
    private long lastAnswerNanos = System.nanoTime();

    private long seenGeneration;
    /** The signals the watcher has acted on (asked for a call). */
    private long actedGeneration;

    private @Nullable ReleaseSignals.Subscription subscription;
    /** Guarded by the map's compute in {@link PermitQueues}: threads waiting here. */
    int users;

    FairPermitQueue(RedisDeployment deployment, String name, int limit, long keepAliveNanos) {
        this.deployment = deployment;
        this.name = name;
        this.limit = limit;
        this.keepAliveNanos = keepAliveNanos;
        this.channel = deployment.keys().semaphoreChannel(name);
    }

    String name() {
        return this.name;
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
            this.arrivals.add(me);
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
                giveBack(me.id, outcome);
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
            boolean signalled = timeout > 0 && subscription.await(seen, timeout, () -> me.outcome != null);
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
        return !this.arrivals.isEmpty() || !this.leaving.isEmpty() || this.syncWanted;
    }

    /** Wakes a waiter other than {@code me}, to make a due call or to watch. Under the lock. */
    private void wakeAnother(@Nullable Waiter me) {
        Waiter other = null;
        for (Waiter waiter : this.ticketed.values()) {
            if (waiter != me) {
                other = waiter;
                break;
            }
        }
        if (other == null) {
            for (Waiter waiter : this.arrivals) {
                if (waiter != me) {
                    other = waiter;
                    break;
                }
            }
        }
        if (other != null) {
            LockSupport.unpark(other.thread);
        } else if (!this.syncing && syncDue()) {
            // Nobody waits here any more to make the call: the watchdog's I/O thread makes it.
            this.syncing = true;
            this.deployment.leases().watchdog().execute(() -> {
                try {
                    sync(null);
                } catch (RuntimeException e) {
                    // unreachable: the places left lapse after the waiter ttl, a permit handed to them with them
                }
            });
        }
    }

    /** Leaves the queue; returns what this waiter was given meanwhile, if anything. */
    private @Nullable Object leave(Waiter me) {
        this.lock.lock();
        try {
            Object outcome = me.outcome;
            if (outcome == null && !me.gone) {
                me.gone = true;
                if (this.arrivals.remove(me)) {
                    // not sent yet: nothing to remove in Redis
                } else {
                    this.ticketed.remove(me.ticket);
                    this.sent.remove(me.member);
                    this.leaving.add(me.member);
                }
            }
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
        List<Waiter> batch;
        List<String> left;
        List<Waiter> waiting;
        boolean hands;
        boolean places;
        this.lock.lock();
        try {
            batch = new ArrayList<>(this.arrivals.subList(0, Math.min(MAX_ARRIVALS, this.arrivals.size())));
            this.arrivals.subList(0, batch.size()).clear();
            for (Waiter waiter : batch) {
                this.sent.put(waiter.member, waiter);
            }
            left = new ArrayList<>(this.leaving);
            this.leaving.clear();
            waiting = new ArrayList<>(this.ticketed.values());
            // A permit is handed in Redis only by a script that signals: look for hands when a
            // signal came since the last call (or nothing says none did).
            hands = this.checkHands || this.subscription == null;
            // Places not renewed for half the waiter ttl may have lapsed: look for them too.
            places = System.nanoTime() - this.lastAnswerNanos > this.keepAliveNanos * 3 / 2;
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
        List<?> reply;
        List<Parked> release;
        try {
            String look = places ? "2" : hands ? "1" : "0";
            reply = (List<?>) Uninterrupted.call(() -> call(left, batch, waiting, look));
        } catch (RuntimeException e) {
            this.lock.lock();
            try {
                // The call may have run: the next one sends the same members again, and takes a
                // permit granted to one of them then.
                this.leaving.addAll(left);
                for (int i = batch.size() - 1; i >= 0; i--) {
                    Waiter waiter = batch.get(i);
                    this.sent.remove(waiter.member);
                    if (waiter.gone) {
                        this.leaving.add(waiter.member);
                    } else {
                        this.arrivals.add(0, waiter);
                    }
                }
                this.checkHands = true;
                this.syncing = false;
                release = takeParked();
            } finally {
                this.lock.unlock();
            }
            release.forEach(this::releaseInRedis);
            throw e;
        }
        List<Runnable> wake = new ArrayList<>();
        this.lock.lock();
        try {
            long now = (Long) reply.get(0);
            this.bound = (Long) reply.get(1);
            long token = (Long) reply.get(2);
            int queued = ((Long) reply.get(3)).intValue();
            for (int i = 0; i < queued; i++) {
                String member = (String) reply.get(4 + 2 * i);
                long ticket = (Long) reply.get(5 + 2 * i);
                Waiter waiter = this.sent.get(member);
                if (waiter == null || waiter.gone) {
                    this.sent.remove(member);
                    this.leaving.add(member);
                    continue;
                }
                if (waiter.ticket > 0) {
                    this.ticketed.remove(waiter.ticket); // its place had lapsed: it queued again
                }
                waiter.ticket = ticket;
                waiter.token = token + i;
                this.ticketed.put(ticket, waiter);
            }
            this.lastAnswerNanos = sentNanos;
            for (int i = 4 + 2 * queued; i < reply.size(); i++) {
                String member = (String) reply.get(i);
                Waiter waiter = this.sent.remove(member);
                if (waiter == null || waiter.gone || waiter.outcome != null) {
                    this.leaving.add(member); // nobody takes it: the next call frees it
                    continue;
                }
                this.ticketed.remove(waiter.ticket);
                waiter.outcome = granted(waiter, sentNanos, now);
                wake.add(() -> LockSupport.unpark(waiter.thread));
            }
            this.syncing = false;
            release = passParked(wake);
            if (syncDue() && (caller == null || caller.outcome != null)) {
                wakeAnother(caller);
            }
        } finally {
            this.lock.unlock();
        }
        wake.forEach(Runnable::run);
        release.forEach(this::releaseInRedis);
    }

    private Object call(List<String> left, List<Waiter> batch, List<Waiter> waiting, String look) {
        long longestLease = 0;
        List<String> args = new ArrayList<>(10 + left.size() + batch.size() + waiting.size());
        args.add(this.deployment.leases().ownerPrefix());
        args.add(Integer.toString(this.limit));
        args.add(""); // the fence ttl, below
        args.add(Long.toString(TimeUnit.NANOSECONDS.toMillis(this.keepAliveNanos * 3)));
        args.add(Integer.toString(left.size()));
        args.add(Integer.toString(batch.size()));
        args.add(this.channel);
        args.add(this.deployment.signalMode().publishCommand());
        args.add(Integer.toString(waiting.size()));
        args.add(look);
        args.addAll(left);
        for (List<Waiter> waiters : List.of(batch, waiting)) {
            for (Waiter waiter : waiters) {
                args.add(waiter.member);
                longestLease = Math.max(longestLease, waiter.terms.leaseTime().toMillis());
            }
        }
        args.set(2, this.deployment.options().fenceTtlMillis(java.time.Duration.ofMillis(longestLease)));
        return this.deployment
                .scripts()
                .eval(
                        SemaphoreScripts.SYNC_FAIR,
                        "wait for a permit of fair semaphore '" + this.name + "'",
                        PermitGrant.fairKeys(this.deployment.keys(), this.name),
                        args);
    }

    /** The lease on the permit Redis granted {@code waiter}, with the token reserved when it arrived. */
    private ManagedLease granted(Waiter waiter, long sentNanos, long grantedAtMillis) {
        PermitCohort cohort = new PermitCohort(
                waiter.id,
                this.deployment.options().cohortHolders(),
                this.deployment.options().cohortMaxAge().toNanos(),
                sentNanos,
                grantedAtMillis,
                (permitId, leaseNanos) -> null);
        return ManagedLease.granted(
                this.deployment.leases(),
                LeaseKind.SEMAPHORE,
                this.name,
                waiter.token,
                waiter.terms,
                sentNanos,
                PermitGrant.fair(this.deployment, this.name, waiter.id, grantedAtMillis, this.limit),
                place(cohort));
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
            next = nextInTurn();
            if (next == null) {
                if (!this.ticketed.isEmpty() || !this.syncing && this.arrivals.isEmpty()) {
                    return false; // another process's waiter is next, or nobody waits here
                }
                // Waiters here are getting their tickets: the permit waits for the answer.
                cohort.passedUnconfirmed(lostInRedis);
                this.parked.add(new Parked(cohort, deadlineNanos, leaseNanos));
                return true;
            }
            cohort.passedUnconfirmed(lostInRedis);
            handTo(next, cohort, deadlineNanos, now);
        } finally {
            this.lock.unlock();
        }
        LockSupport.unpark(next.thread);
        return true;
    }

    /** The waiter here with the lowest ticket, if it is below the bound. Under the lock. */
    private @Nullable Waiter nextInTurn() {
        Map.Entry<Long, Waiter> first = this.ticketed.firstEntry();
        return first == null || first.getKey() >= this.bound ? null : first.getValue();
    }

    /** Passes {@code cohort}'s permit to {@code next} (unpark it after the lock). Under the lock. */
    private void handTo(Waiter next, PermitCohort cohort, long deadlineNanos, long now) {
        this.ticketed.remove(next.ticket);
        this.sent.remove(next.member);
        this.leaving.add(next.member);
        cohort.serveOneMore();
        next.outcome = new PermitQueue.PermitHandOff(cohort, next.token, deadlineNanos, now);
    }

    /**
     * Passes each parked permit to the next waiter in turn, when it may still serve one; returns
     * those to release in Redis. Under the lock, after an answer.
     */
    private List<Parked> passParked(List<Runnable> wake) {
        if (this.parked.isEmpty()) {
            return List.of();
        }
        List<Parked> release = new ArrayList<>();
        long now = System.nanoTime();
        for (Parked permit : this.parked) {
            Waiter next = nextInTurn();
            if (next != null
                    && permit.deadlineNanos() - now > LocalGates.minLeftToPass(permit.leaseNanos())
                    && permit.cohort().mayServe(now)) {
                handTo(next, permit.cohort(), permit.deadlineNanos(), now);
                wake.add(() -> LockSupport.unpark(next.thread));
            } else {
                release.add(permit);
            }
        }
        this.parked.clear();
        return release;
    }

    /** Takes every parked permit, to release in Redis. Under the lock. */
    private List<Parked> takeParked() {
        List<Parked> release = new ArrayList<>(this.parked);
        this.parked.clear();
        return release;
    }

    /** Releases a parked permit in Redis, which hands it to the head of the queue. */
    private void releaseInRedis(Parked permit) {
        PermitCohort cohort = permit.cohort();
        try {
            long released = PermitGrant.releaseFair(this.deployment, this.name, cohort.permitId(), this.limit);
            if (released >= 0 || permit.deadlineNanos() - System.nanoTime() > 0) {
                cohort.redisAnswered(released >= 0);
            }
        } catch (RuntimeException ignored) {
            // unreachable: the permit expires by its lease
        }
    }

    /**
     * Gives a permit back to Redis: one granted to waiter {@code id}, or passed to it, that it
     * will not hold (it left meanwhile, or too little of a passed permit was left). Redis hands it
     * to the head of the queue.
     */
    void giveBack(String id, Object outcome) {
        String permitId = outcome instanceof PermitQueue.PermitHandOff handOff
                ? handOff.cohort().permitId()
                : id;
        try {
            long released = PermitGrant.releaseFair(this.deployment, this.name, permitId, this.limit);
            if (outcome instanceof PermitQueue.PermitHandOff handOff
                    && (released >= 0 || handOff.keyDeadlineNanos() - System.nanoTime() > 0)) {
                handOff.cohort().redisAnswered(released >= 0);
            }
        } catch (RuntimeException ignored) {
            // unreachable: the permit expires by its lease
        }
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
