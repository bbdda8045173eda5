package dev.turnstile.redis.internal;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Queues the threads of this process that want the same lock, so that only one of them at a time
 * (the gate's occupant) holds or contends for the lock in Redis; the others wait here, in arrival
 * order, without any Redis traffic.
 *
 * <p>When the occupant releases while others queue, it may pass its Redis grant to the first of
 * them without a Redis round trip ({@link Gate#handOff}): the lock cohort. Otherwise it releases in
 * Redis and {@link Gate#exit leaves}: the next thread becomes the occupant and contends in Redis,
 * after letting another process go first if one was waiting (it was told of the release). The
 * occupant's lease does either through the {@link LocalPlace} its gate gave it ({@link
 * Gate#place}).
 *
 * <p>A gate nobody is in stays in the map, idle, so that the next thread for the name joins it
 * without making one (and its keys) anew; idle gates are retired in a sweep once the map has grown
 * past {@link #IDLE_GATES_KEPT} gates and past twice what the last sweep left (the gates then in
 * use), so the map holds at most about twice the names in use at the last sweep, or that many, and
 * sweeps in amortised constant time per new gate.
 */
final class LocalGates {

    /** A grant is passed on only while this much of it is left (at most): less, and it goes back to Redis. */
    private static final long MIN_LEFT_TO_PASS_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** Returns how much of a grant must be left to pass it on to a holder whose lease is {@code leaseNanos}. */
    static long minLeftToPass(long leaseNanos) {
        return Math.min(MIN_LEFT_TO_PASS_NANOS, leaseNanos / 10);
    }

    /**
     * Whether a grant passed on, which lives in Redis at least until {@code keyDeadlineNanos}, has
     * enough left to be worth holding on {@code terms}; if not, the receiver releases it in Redis and
     * contends there.
     */
    static boolean worthHolding(long keyDeadlineNanos, LeaseTerms terms) {
        return keyDeadlineNanos - System.nanoTime()
                > minLeftToPass(terms.leaseTime().toNanos());
    }

    /** Gates left idle before a sweep retires the idle ones. */
    static final int IDLE_GATES_KEPT = 1024;

    private final ConcurrentHashMap<String, Gate> gates = new ConcurrentHashMap<>();
    /** The map's size at which the next new gate sweeps out the idle ones. */
    private volatile int sweepAt = IDLE_GATES_KEPT;
    /** Held by the thread that sweeps. */
    private final ReentrantLock sweeping = new ReentrantLock();

    private final RedisKeys keys;
    /** Whether a queued thread may wait awake for a turn due soon ({@link TurnPace}); else it parks at once. */
    private final boolean waitAwake;

    LocalGates(RedisKeys keys, boolean waitAwake) {
        this.keys = keys;
        this.waitAwake = waitAwake;
    }

    /**
     * Enters the gate of {@code name}, waiting until {@code deadlineNanos} for the occupant to leave
     * or to pass its grant.
     *
     * @return the entry, or null if the deadline passed first
     * @throws InterruptedException if interrupted while queued (nothing is held then)
     */
    @Nullable
    Entry enter(String name, long deadlineNanos) throws InterruptedException {
        // A known name's gate is joined without locking the map; a new or retired one is made under it.
        Gate gate = this.gates.get(name);
        if (gate == null || !gate.join()) {
            gate = this.gates.compute(
                    name, (key, existing) -> existing != null && existing.join() ? existing : new Gate(key));
            if (this.gates.size() > this.sweepAt) {
                sweepIdle();
            }
        }
        Gate joined = gate;
        return QueuedThread.awaitOrLeave(() -> joined.await(deadlineNanos), () -> leave(joined));
    }

    /** Returns whether a queued thread may wait awake for a turn due soon. */
    boolean waitsAwake() {
        return this.waitAwake;
    }

    /** Returns the number of names with a thread inside or waiting. */
    int size() {
        return (int) this.gates.values().stream().filter(Gate::inUse).count();
    }

    /** Returns the number of gates kept, idle ones included (for tests). */
    int kept() {
        return this.gates.size();
    }

    /**
     * Retires every idle gate and sets the size of the next sweep: twice what is left, at least
     * {@link #IDLE_GATES_KEPT}. A thread that comes for a retired gate's name makes a new one.
     */
    private void sweepIdle() {
        if (!this.sweeping.tryLock()) {
            return;
        }
        try {
            this.gates.values().removeIf(Gate::retire);
            this.sweepAt = Math.max(IDLE_GATES_KEPT, 2 * this.gates.size());
        } finally {
            this.sweeping.unlock();
        }
    }

    private void leave(Gate gate) {
        gate.quit();
    }

    /**
     * What a thread that entered a gate got.
     *
     * @param gate the gate; the thread is its occupant until it hands off or exits
     * @param handOff the Redis grant passed to it by the previous occupant, or null: contend in Redis
     * @param yieldFirst whether another process waited at the last release: let it try first
     */
    record Entry(Gate gate, @Nullable HandOff handOff, boolean yieldFirst) {}

    /** One name's gate. */
    final class Gate {

        /** {@link #users} of a gate a sweep took out of the map. */
        private static final int RETIRED = -1;

        private final String name;
        /**
         * The name's lock key, fencing counter, forced-release marker and release channel (the lock
         * key), the key lists its scripts take and the words that name its calls in errors, built
         * once per gate (a kept gate serves every later acquisition of its name).
         */
        final String lockKey;

        final String fenceKey;
        final String forceReleasedKey;
        final String channel;
        /** The acquire's keys: lock, fence. */
        final List<String> acquireKeys;
        /** The renewal's and the hold's keys: lock, forced-release marker. */
        final List<String> ownerKeys;
        /** The release's key: the lock alone ({@link LockGrant#release}). */
        final List<String> lockKeys;

        final String acquireOperation;
        final String renewOperation;
        final String releaseOperation;
        final String subject;
        private final ReentrantLock lock = new ReentrantLock();
        private final ArrayDeque<QueuedThread<Entry>> queue = new ArrayDeque<>(4);
        private final TurnPace pace = new TurnPace();
        private boolean occupied;
        /**
         * Threads inside or queued; 0 while idle. A sweep retires an idle gate by setting it to
         * {@link #RETIRED}: nobody joins it again, and it leaves the map (a thread that comes then
         * makes a new gate for the name).
         */
        private final AtomicInteger users = new AtomicInteger(1);
        /** The entry of a thread that found the gate free. */
        private final Entry entered = new Entry(this, null, false);

        private Gate(String name) {
            this.name = name;
            this.lockKey = LocalGates.this.keys.lock(name);
            this.fenceKey = LocalGates.this.keys.lockFence(name);
            this.forceReleasedKey = LocalGates.this.keys.lockForceReleased(name);
            this.channel = LocalGates.this.keys.lockChannel(name);
            this.acquireKeys = List.of(this.lockKey, this.fenceKey);
            this.ownerKeys = List.of(this.lockKey, this.forceReleasedKey);
            this.lockKeys = List.of(this.lockKey);
            this.acquireOperation = "acquire lock '" + name + "'";
            this.renewOperation = "renew lock '" + name + "'";
            this.releaseOperation = "release lock '" + name + "'";
            this.subject = "Lock '" + name + "'";
        }

        /** Counts one more user, unless the gate is retired; the thread that made it is its first. */
        private boolean join() {
            for (int now = this.users.get(); now != RETIRED; now = this.users.get()) {
                if (this.users.compareAndSet(now, now + 1)) {
                    return true;
                }
            }
            return false;
        }

        /** Counts one user less: the last leaves the gate idle. */
        private void quit() {
            this.users.decrementAndGet();
        }

        /** Retires the gate if it is idle; returns whether it did (nobody joins it again). */
        private boolean retire() {
            return this.users.compareAndSet(0, RETIRED);
        }

        /** Whether a thread is inside or queued. */
        private boolean inUse() {
            return this.users.get() > 0;
        }

        private @Nullable Entry await(long deadlineNanos) throws InterruptedException {
            QueuedThread<Entry> waiter;
            long awakeNanos;
            this.lock.lock();
            try {
                if (!this.occupied) {
                    this.occupied = true;
                    this.pace.entered(System.nanoTime());
                    return this.entered;
                }
                waiter = new QueuedThread<>();
                awakeNanos =
                        LocalGates.this.waitAwake ? this.pace.awakeNanos(this.queue.size() + 1, System.nanoTime()) : 0;
                this.queue.addLast(waiter);
            } finally {
                this.lock.unlock();
            }
            return waiter.await(deadlineNanos, awakeNanos, this, this.lock, this.queue, "lock '" + this.name + "'");
        }

        /**
         * The occupant's place, for the lease on {@code cohort}'s grant: on release it passes the
         * grant to the next queued thread while the cohort allows and enough of the grant is left;
         * otherwise the lease releases in Redis and leaves the gate.
         */
        LocalPlace place(Cohort cohort) {
            return new CohortPlace(cohort);
        }

        /** The occupant's place in this gate, holding a grant of {@code cohort}. */
        private final class CohortPlace implements LocalPlace {

            private final Cohort cohort;

            CohortPlace(Cohort cohort) {
                this.cohort = cohort;
            }

            @Override
            public boolean passOn(long deadlineNanos, long leaseNanos) {
                long now = System.nanoTime();
                if (deadlineNanos - now > minLeftToPass(leaseNanos) && handOff(this.cohort, deadlineNanos, now)) {
                    this.cohort.refillIfDue(now, leaseNanos);
                    return true;
                }
                return false;
            }

            @Override
            public void leave(long waitersElsewhere) {
                exit(waitersElsewhere);
            }
        }

        /**
         * Passes the occupant's Redis grant, with the cohort's next fencing token, to the first
         * queued thread, which becomes the occupant; the token is taken only when a thread queues.
         *
         * @param keyDeadlineNanos the occupant's deadline: the grant lives in Redis at least until then
         * @return false if no thread queues or the cohort must end: the occupant keeps the gate and
         *     must release in Redis
         */
        private boolean handOff(Cohort cohort, long keyDeadlineNanos, long nowNanos) {
            QueuedThread<Entry> next;
            this.lock.lock();
            try {
                next = this.queue.peekFirst();
                if (next == null) {
                    return false;
                }
                long token = cohort.takeToken(nowNanos);
                if (token <= 0) {
                    return false;
                }
                this.queue.pollFirst();
                this.pace.passed(nowNanos);
                next.admit(new Entry(this, new HandOff(cohort, token, keyDeadlineNanos, nowNanos), false));
            } finally {
                this.lock.unlock();
            }
            next.wake();
            leave(this);
            return true;
        }

        /**
         * Leaves the gate after the lock was released in Redis or lost: the first queued thread, if
         * any, becomes the occupant and contends in Redis.
         *
         * @param waitersElsewhere processes told of the release (-1 unknown): when one was, the next
         *     occupant lets it try first
         */
        void exit(long waitersElsewhere) {
            QueuedThread<Entry> next;
            this.lock.lock();
            try {
                next = this.queue.pollFirst();
                if (next == null) {
                    this.occupied = false;
                    this.pace.freed();
                } else {
                    this.pace.passed(System.nanoTime());
                    next.admit(new Entry(this, null, waitersElsewhere > 0));
                }
            } finally {
                this.lock.unlock();
            }
            if (next != null) {
                next.wake();
            }
            leave(this);
        }

        @Override
        public String toString() {
            return "gate '" + this.name + "'";
        }
    }
}
