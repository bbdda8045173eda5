package dev.turnstile.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.semaphore.RedisSemaphore;
import dev.turnstile.test.redis.RedisClients;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * More threads than the client's pool has connections (Jedis's default pool of 8, one of them
 * carrying the release signals), interrupted again and again while they acquire: an interrupt
 * often lands while the thread waits for a pooled connection, for its acquire call or for a
 * clean-up call on the way out (the release of a grant that raced the interrupt, leaving a fair
 * queue). Whatever it cuts, the caller gets the library's interrupted exception with its interrupt
 * flag set (or, if the interrupt came too late, its lease with the flag set), never the pool's
 * failure, and once every thread returned and released its leases nothing is left held or queued
 * in Redis.
 */
class InterruptedConnectionWaitIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final int THREADS = 16;
    private static final Duration RUN = Duration.ofSeconds(3);

    @Test
    void interruptedLockAcquisitionsLeaveNothingHeldAndKeepTheInterrupt() throws Exception {
        try (UnifiedJedis client = defaultPoolClient();
                Turnstile turnstile = Turnstile.builder(client).build()) {
            // More names than connections, so more threads contend in Redis than the pool serves.
            List<String> names = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                names.add("interrupted-" + i);
            }
            Race race = new Race(() -> {
                String name = names.get(ThreadLocalRandom.current().nextInt(names.size()));
                return turnstile.lock(name).tryAcquire(Duration.ofSeconds(10), null);
            });
            race.run();
            long leftHeld = names.stream()
                    .filter(name -> client.exists("turnstile:lock:{" + name + "}"))
                    .count();
            race.report("lock", leftHeld);
            race.assertKept();
            assertThat(leftHeld).as("locks left held in Redis").isZero();
        }
    }

    @Test
    void interruptedPermitAcquisitionsLeaveNothingHeldAndKeepTheInterrupt() throws Exception {
        try (UnifiedJedis client = defaultPoolClient();
                Turnstile turnstile = Turnstile.builder(client).build()) {
            RedisSemaphore semaphore = turnstile.semaphore("interrupted", 12);
            Race race = new Race(() -> semaphore.tryAcquire(Duration.ofSeconds(10), null));
            race.run();
            int leftHeld = semaphore.holders().size();
            race.report("semaphore", leftHeld);
            race.assertKept();
            assertThat(semaphore.holders()).as("permits left held in Redis").isEmpty();
        }
    }

    @Test
    void interruptedFairPermitAcquisitionsLeaveNothingHeldNorQueuedAndKeepTheInterrupt() throws Exception {
        try (UnifiedJedis client = defaultPoolClient();
                Turnstile turnstile = Turnstile.builder(client).build()) {
            RedisSemaphore semaphore =
                    turnstile.semaphore("interrupted-fair", 4).fair();
            Race race = new Race(() -> semaphore.tryAcquire(Duration.ofSeconds(10), null));
            race.run();
            // A waiter that left is taken off Redis's queue by a call the process makes in the
            // background, and a permit Redis handed it meanwhile is given back when that call
            // answers: moments after the last thread stopped, not at once. A permit kept would stay
            // held for its 30 s lease (renewed by nobody) or longer.
            try {
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> semaphore.holders().isEmpty()
                                && client.zcard("turnstile:sem:{interrupted-fair}:queue") == 0);
            } catch (ConditionTimeoutException kept) {
                // reported and asserted below
            }
            int leftHeld = semaphore.holders().size();
            long leftQueued = client.zcard("turnstile:sem:{interrupted-fair}:queue");
            race.report("fair semaphore", leftHeld + leftQueued);
            race.assertKept();
            assertThat(semaphore.holders()).as("permits left held in Redis").isEmpty();
            assertThat(leftQueued).as("places left in the queue").isZero();
        }
    }

    /** A pooled client with Jedis's default pool (8 connections). */
    private static UnifiedJedis defaultPoolClient() {
        UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(5));
        assertThat(RedisClients.poolOf(client).getMaxTotal())
                .as("Jedis's default pool")
                .isEqualTo(8);
        return client;
    }

    /** One acquisition: a lease, or empty when the wait passed. */
    @FunctionalInterface
    private interface Acquire {

        Optional<? extends AutoCloseable> tryAcquire();
    }

    /**
     * {@link #THREADS} threads acquiring and releasing for {@link #RUN}, interrupted at random
     * moments of their acquisitions (never while they hold or release).
     */
    private static final class Race {

        private final Acquire acquire;
        private final AtomicInteger acquired = new AtomicInteger();
        private final AtomicInteger timedOut = new AtomicInteger();
        private final AtomicInteger interruptsSent = new AtomicInteger();
        /** Acquisitions that threw the library's interrupted exception, flag set. */
        private final AtomicInteger interrupted = new AtomicInteger();
        /** Leases returned to a thread interrupted after the acquisition's last check (flag set). */
        private final AtomicInteger grantedInterrupted = new AtomicInteger();
        /** Failures that are the pool's ("Could not get a resource from the pool"). */
        private final AtomicInteger poolFailures = new AtomicInteger();
        /** Interrupted acquisitions that returned or threw with the interrupt flag cleared. */
        private final AtomicInteger flagsLost = new AtomicInteger();

        private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();

        Race(Acquire acquire) {
            this.acquire = acquire;
        }

        void run() throws InterruptedException {
            long end = System.nanoTime() + RUN.toNanos();
            List<Thread> workers = new ArrayList<>();
            List<Attempt> attempts = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Attempt attempt = new Attempt();
                Thread worker = new Thread(() -> work(end, attempt), "interrupted-" + t);
                workers.add(worker);
                attempts.add(attempt);
                worker.start();
            }
            while (System.nanoTime() - end < 0) {
                int victim = ThreadLocalRandom.current().nextInt(workers.size());
                Attempt attempt = attempts.get(victim);
                synchronized (attempt) {
                    if (attempt.running) {
                        attempt.interruptSent = true;
                        workers.get(victim).interrupt();
                        this.interruptsSent.incrementAndGet();
                    }
                }
                // The fault's cadence (a nemesis step), not a wait for a condition.
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(
                        ThreadLocalRandom.current().nextInt(100, 1_000)));
            }
            for (Thread worker : workers) {
                worker.join(TimeUnit.SECONDS.toMillis(60));
                if (worker.isAlive()) {
                    this.failures.add(worker.getName() + " still running");
                }
            }
        }

        private void work(long end, Attempt attempt) {
            while (System.nanoTime() - end < 0) {
                Optional<? extends AutoCloseable> lease = Optional.empty();
                boolean threwInterrupted = false;
                synchronized (attempt) {
                    attempt.running = true;
                    attempt.interruptSent = false;
                }
                try {
                    lease = this.acquire.tryAcquire();
                    if (lease.isEmpty()) {
                        this.timedOut.incrementAndGet();
                    }
                } catch (LockAcquisitionException e) {
                    threwInterrupted = e.isInterrupted();
                    if (!threwInterrupted) {
                        this.failures.add("acquire: " + e);
                    }
                } catch (SemaphoreFullException e) {
                    threwInterrupted = e.getMessage().startsWith("Interrupted");
                    if (!threwInterrupted) {
                        this.failures.add("acquire: " + e);
                    }
                } catch (RuntimeException e) {
                    if (String.valueOf(e.getMessage()).contains("Could not get a resource from the pool")) {
                        this.poolFailures.incrementAndGet();
                    } else {
                        this.failures.add("acquire: " + e);
                    }
                } finally {
                    synchronized (attempt) {
                        attempt.running = false;
                        boolean flag = Thread.interrupted();
                        if (threwInterrupted) {
                            this.interrupted.incrementAndGet();
                            if (!flag) {
                                this.flagsLost.incrementAndGet();
                            }
                        } else if (attempt.interruptSent) {
                            if (!flag) {
                                this.flagsLost.incrementAndGet();
                            } else if (lease.isPresent()) {
                                this.grantedInterrupted.incrementAndGet();
                            }
                        }
                    }
                }
                if (lease.isPresent()) {
                    this.acquired.incrementAndGet();
                    try (AutoCloseable held = lease.get()) {
                        Thread.onSpinWait();
                    } catch (Exception e) {
                        this.failures.add("release: " + e);
                    }
                }
            }
        }

        void report(String what, long left) {
            System.out.printf(
                    "%s: %d threads on a pool of 8, %d interrupts sent: %d acquired (%d with the flag set),"
                            + " %d timed out, %d interrupted, %d pool failures, %d interrupt flags lost,"
                            + " %d left in Redis, other failures %s%n",
                    what,
                    THREADS,
                    this.interruptsSent.get(),
                    this.acquired.get(),
                    this.grantedInterrupted.get(),
                    this.timedOut.get(),
                    this.interrupted.get(),
                    this.poolFailures.get(),
                    this.flagsLost.get(),
                    left,
                    this.failures);
        }

        void assertKept() {
            assertThat(this.failures).as("failures").isEmpty();
            assertThat(this.poolFailures.get()).as("pool failures that escaped").isZero();
            assertThat(this.flagsLost.get()).as("interrupt flags lost").isZero();
            // A wait of 10 s runs out only behind a grant nobody holds any more.
            assertThat(this.timedOut.get()).as("acquisitions timed out").isZero();
            assertThat(this.interrupted.get()).as("acquisitions interrupted").isPositive();
            assertThat(this.acquired.get()).as("acquisitions granted").isPositive();
        }
    }

    /** A worker's acquisition in progress, and whether an interrupt was sent to it. */
    private static final class Attempt {

        private boolean running;
        private boolean interruptSent;
    }
}
