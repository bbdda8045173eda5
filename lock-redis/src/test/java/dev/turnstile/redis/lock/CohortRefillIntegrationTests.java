package dev.turnstile.redis.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseLostEvent;
import dev.turnstile.redis.NamedLock;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * The lock cohort's refill (the next block reserved in Redis while the block in use runs out)
 * against what other holders of the same grant do to the key, and against other processes that
 * want the lock.
 */
class CohortRefillIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private UnifiedJedis client;
    private UnifiedJedis elsewhereClient;
    private final List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
    private ExecutorService threads;

    @BeforeEach
    void setUp() {
        this.client = redis.server().newClient(Duration.ofSeconds(5));
        this.elsewhereClient = redis.server().newClient(Duration.ofSeconds(5));
        this.threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void tearDown() {
        this.threads.shutdownNow();
        this.elsewhereClient.close();
        this.client.close();
    }

    /**
     * A holder that shortens the key's time to live after a refill extended it (here with {@code
     * extend}) and then passes the grant on: the next holder must not count on the refill's longer
     * expiry, which the shorter renewal replaced in Redis.
     */
    @Test
    void aHolderPassedOnAfterTheKeyWasShortenedDoesNotOutliveTheKey() throws Exception {
        String name = "refill-then-extend";
        try (Turnstile here = cohortOfFour(null);
                Turnstile elsewhere = cohortOfFour(this.elsewhereClient)) {
            Lease third = passedOnAfterTheKeyWasShortened(here.lock(name));

            assertTheKeyIsNotOutlived(name, third, elsewhere);
        }
    }

    /**
     * As above, and the holder passed on then passes the grant again: a hold that starts after
     * another process was granted the lock must not overlap it, nor get a lower fencing token.
     */
    @Test
    void aPassAfterTheShortenedKeyExpiredNeitherOverlapsNorUndercutsAnotherProcess() throws Exception {
        String name = "refill-then-extend-then-pass";
        try (Turnstile here = cohortOfFour(null);
                Turnstile elsewhere = cohortOfFour(this.elsewhereClient)) {
            NamedLock lock = here.lock(name);
            Lease third = passedOnAfterTheKeyWasShortened(lock);
            Future<Lease> fourthQueued = queueBehind(lock, Duration.ofSeconds(20));

            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1_000));
            Optional<Lease> theirs = elsewhere.lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(5));
            try {
                third.release();
                Lease fourth = fourthQueued.get(5, TimeUnit.SECONDS);
                System.out.printf(
                        "another process holds %s; the next holder here, after it: token %d, held=%s%n",
                        theirs.map(Lease::fencingToken), fourth.fencingToken(), fourth.isHeld());
                if (theirs.isPresent()) {
                    assertThat(fourth.isHeld())
                            .as(
                                    "a holder here that started while another process holds the lock (token %d"
                                            + " against their %d)",
                                    fourth.fencingToken(), theirs.get().fencingToken())
                            .isFalse();
                }
                fourth.release();
            } finally {
                theirs.ifPresent(Lease::release);
            }
        }
    }

    /**
     * As above with the watchdog: a fixed 20 s lease passes the grant to a watchdog lease of 600 ms,
     * whose renewal sets the key to 600 ms after the refill set it to 20 s; it then passes the grant to
     * a fixed 20 s lease. (Fixed and watchdog leases on one name: a scheduled job and a request path.)
     */
    @Test
    void aHolderPassedOnAfterAWatchdogRenewalShortenedTheKeyDoesNotOutliveTheKey() throws Exception {
        String name = "refill-then-watchdog";
        try (Turnstile here = Turnstile.builder(this.client)
                        .defaultLease(Duration.ofMillis(600))
                        .lockCohort(4, Duration.ofSeconds(10))
                        .listener(this.lost::add)
                        .build();
                Turnstile elsewhere = cohortOfFour(this.elsewhereClient)) {
            NamedLock lock = here.lock(name);
            Lease first = lock.acquire(Duration.ZERO, Duration.ofSeconds(20));
            long reserved = fence(name);
            Future<Lease> queued = queueBehind(lock, null);
            first.release();
            Lease second = queued.get(5, TimeUnit.SECONDS);
            awaitRefill(name, reserved);
            // The watchdog renews the 600 ms lease a third of the way in: the key drops from 20 s.
            await().atMost(Duration.ofSeconds(2)).until(() -> this.client.pttl(key(name)) <= 600L);

            Future<Lease> queuedAgain = queueBehind(lock, Duration.ofSeconds(20));
            assertThat(second.release()).isTrue();
            Lease third = queuedAgain.get(5, TimeUnit.SECONDS);

            assertTheKeyIsNotOutlived(name, third, elsewhere);
        }
    }

    /**
     * A holder passed on that releases with a hold right away ({@code releaseAfter}, ShedLock's
     * {@code lockAtLeastFor}) keeps the key under the cohort's owner token for the hold. The refill
     * the pass asked for may reach Redis after that release: it must not stretch the hold to the
     * passer's lease (the cohort is over; nobody would free the key before it expires).
     */
    @Test
    void aReleaseWithAHoldRightAfterAPassIsNotStretchedByTheRefill() throws Exception {
        try (Turnstile here = cohortOfFour(null)) {
            int tries = 0;
            List<String> stretched = new CopyOnWriteArrayList<>();
            for (int i = 0; i < 300 && stretched.isEmpty(); i++) {
                tries++;
                String name = "hold-after-pass-" + i;
                NamedLock lock = here.lock(name);
                Lease first = lock.acquire(Duration.ZERO, Duration.ofSeconds(20));
                long before = queuedThreads();
                Future<Lease> queued = this.threads.submit(() -> {
                    Lease second = lock.acquire(Duration.ofSeconds(10), Duration.ofSeconds(20));
                    second.releaseAfter(Duration.ofMillis(100));
                    return second;
                });
                await().pollInterval(Duration.ofMillis(1))
                        .atMost(Duration.ofSeconds(5))
                        .until(() -> queuedThreads() > before);
                first.release(); // passed on: a quarter of the block of 4 is used, the refill is asked
                queued.get(5, TimeUnit.SECONDS);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(150));
                long pttl = this.client.pttl(key(name));
                if (pttl > 1_000) {
                    stretched.add(name + ": pttl " + pttl + " ms 150 ms after a 100 ms hold");
                }
            }
            System.out.printf("holds stretched: %s after %d tries%n", stretched, tries);
            assertThat(stretched)
                    .as("keys still there long after a 100 ms hold of a cohort that ended (%d tries)", tries)
                    .isEmpty();
        }
    }

    /**
     * A fixed 20 s lease passes {@code lock} to another (a quarter of the block of 4 used: the next
     * block is reserved, on code that refills), which shortens the key to 300 ms and passes the
     * grant to a third fixed 20 s lease: returns that third holder.
     */
    private Lease passedOnAfterTheKeyWasShortened(NamedLock lock) throws Exception {
        String name = lock.names().get(0);
        Lease first = lock.acquire(Duration.ZERO, Duration.ofSeconds(20));
        long reserved = fence(name);
        Future<Lease> queued = queueBehind(lock, Duration.ofSeconds(20));
        first.release();
        Lease second = queued.get(5, TimeUnit.SECONDS);
        awaitRefill(name, reserved);
        second.extend(Duration.ofMillis(300));
        assertThat(this.client.pttl(key(name))).isBetween(1L, 300L);
        Future<Lease> queuedAgain = queueBehind(lock, Duration.ofSeconds(20));
        assertThat(second.release()).isTrue();
        return queuedAgain.get(5, TimeUnit.SECONDS);
    }

    /**
     * Lets the shortened time to live run out, then has another process try the lock: the holder
     * passed on either kept the key (its top-up renewed it) or is no longer held; never both it
     * and the other process.
     */
    private void assertTheKeyIsNotOutlived(String name, Lease holder, Turnstile elsewhere) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1_000));
        boolean keyThere = this.client.exists(key(name));
        Optional<Lease> theirs = elsewhere.lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(5));
        try {
            boolean stillHeld = holder.isHeld();
            System.out.printf(
                    "key there: %s; another process got it: %s; the holder passed on (token %d) says held=%s,"
                            + " remaining=%s, losses reported=%s%n",
                    keyThere,
                    theirs.map(Lease::fencingToken),
                    holder.fencingToken(),
                    stillHeld,
                    holder.remaining(),
                    this.lost);
            assertThat(stillHeld && theirs.isPresent())
                    .as(
                            "the holder passed on says it holds (%s left) while another process holds the lock (key there"
                                    + " before its try: %s)",
                            holder.remaining(), keyThere)
                    .isFalse();
        } finally {
            theirs.ifPresent(Lease::release);
        }
    }

    /** Gives a refill of the block reserved up to {@code reserved} 300 ms to land, and tells whether one did. */
    private void awaitRefill(String name, long reserved) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
        System.out.printf("refilled: %s%n", fence(name) > reserved);
    }

    /** A cohort of 4: the first pass uses a quarter of the block and asks for the next one. */
    private Turnstile cohortOfFour(@Nullable UnifiedJedis on) {
        return Turnstile.builder(on == null ? this.client : on)
                .lockCohort(4, Duration.ofSeconds(10))
                .listener(this.lost::add)
                .build();
    }

    private long fence(String name) {
        return Long.parseLong(this.client.get("turnstile:fence:{" + name + "}"));
    }

    private static String key(String name) {
        return "turnstile:lock:{" + name + "}";
    }

    /** Starts a thread that acquires {@code lock} for {@code lease} and waits until it queues behind the holder. */
    private Future<Lease> queueBehind(NamedLock lock, @Nullable Duration lease) {
        long before = queuedThreads();
        Future<Lease> waiter = this.threads.submit(() -> lock.acquire(Duration.ofSeconds(10), lease));
        await().atMost(Duration.ofSeconds(5)).until(() -> queuedThreads() > before);
        return waiter;
    }

    /** Threads parked in a gate. */
    private static long queuedThreads() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(entry -> entry.getKey().getState() == Thread.State.TIMED_WAITING)
                .filter(entry -> Arrays.stream(entry.getValue())
                        .anyMatch(frame -> frame.getClassName().startsWith("dev.turnstile.redis.internal.LocalGates")))
                .count();
    }
}
