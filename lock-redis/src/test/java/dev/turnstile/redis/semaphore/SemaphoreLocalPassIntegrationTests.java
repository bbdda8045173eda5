package dev.turnstile.redis.semaphore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * The semaphore's local queue and local passing against the guarantees as documented: a fair
 * semaphore keeps arrival order across processes and within one (it never queues in the process),
 * and a permit that vanished from Redis while it was passed between the threads of a process is
 * reported lost for every holder of the chain. Two Turnstile instances on one server stand for two
 * processes (each has its own local queue, as two JVMs would).
 */
class SemaphoreLocalPassIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void fairWaiterBehindItsOwnProcessHolderIsServedBeforeALaterArrivalOfAnotherProcess() throws Exception {
        String name = "fifo-x";
        try (UnifiedJedis ca = redis.server().newClient(Duration.ofSeconds(5));
                UnifiedJedis cb = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile a = Turnstile.builder(ca).build();
                Turnstile b = Turnstile.builder(cb).build()) {
            RedisSemaphore sa = a.semaphore(name, 1).fair();
            RedisSemaphore sb = b.semaphore(name, 1).fair();
            List<String> order = new CopyOnWriteArrayList<>();
            Permit h = sa.acquire(Duration.ZERO, LEASE);
            Thread w = holder(sa, order, "W", () -> sleep(50));
            awaitQueuedInRedis(name, 1); // W's ticket
            Thread t = holder(sb, order, "T", () -> sleep(50));
            awaitQueuedInRedis(name, 2); // T's, after W's
            h.release();
            w.join(10_000);
            t.join(10_000);
            System.out.println("fifo-x order " + order);
            assertThat(order)
                    .as("W arrived (in process A) before T (in process B)")
                    .containsExactly("W", "T");
        }
    }

    @Test
    void aFairLocalPassNeverOvertakesAnEarlierThreadOfTheSameProcessQueuedInRedis() throws Exception {
        String name = "fifo-local";
        try (UnifiedJedis ca = redis.server().newClient(Duration.ofSeconds(5));
                UnifiedJedis cb = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile a = Turnstile.builder(ca)
                        .lockCohort(32, Duration.ofSeconds(2))
                        .build();
                Turnstile b = Turnstile.builder(cb).build()) {
            RedisSemaphore sa = a.semaphore(name, 2).fair();
            RedisSemaphore sb = b.semaphore(name, 2).fair();
            List<String> order = new CopyOnWriteArrayList<>();
            CountDownLatch releaseX = new CountDownLatch(1);
            CountDownLatch releaseT = new CountDownLatch(1);
            Permit z = sb.acquire(Duration.ZERO, LEASE);
            long h1At = System.nanoTime();
            Permit h1 = sa.acquire(Duration.ZERO, LEASE);
            Thread x = holder(sa, order, "X", () -> awaitLatch(releaseX));
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> redis.server().client().zcard(queue(name)) == 1);
            Thread c = holder(sa, order, "C", () -> sleep(20));
            awaitQueuedInRedis(name, 2); // C's ticket, after X's
            Thread w = holder(sa, order, "W", () -> sleep(20));
            awaitQueuedInRedis(name, 3); // W's, after C's
            awaitAge(h1At, Duration.ofMillis(1300));
            // With local passing, C and W waited in process A, and X's grant found Redis's queue empty.
            z.release();
            await().atMost(Duration.ofSeconds(5)).until(() -> order.contains("X"));
            Thread t = holder(sb, order, "T", () -> awaitLatch(releaseT));
            awaitQueuedInRedis(name, 3); // C, W and T's ticket
            awaitAge(h1At, Duration.ofMillis(2200));
            // With local passing, H1's grant was too old to pass on: C took its ticket only now, behind T.
            h1.release();
            await().atMost(Duration.ofSeconds(5)).until(() -> order.size() >= 2);
            // The one H1's permit went to has left the queue (C and W hold only briefly, so fewer may stay).
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> redis.server().client().zcard(queue(name)) <= 2);
            System.out.println("fifo-local queued in Redis before X releases: "
                    + redis.server().client().zrange(queue(name), 0, -1));
            // With local passing, X's young permit went to the head of A's local queue, W, ahead of C.
            releaseX.countDown();
            await().atMost(Duration.ofSeconds(2)).until(() -> order.contains("W") || order.contains("C"));
            releaseT.countDown();
            x.join(10_000);
            c.join(10_000);
            w.join(10_000);
            t.join(10_000);
            System.out.println("fifo-local order " + order);
            assertThat(order.indexOf("C"))
                    .as("C arrived in process A before W, and was queued in Redis when W got a permit: %s", order)
                    .isLessThan(order.indexOf("W"));
        }
    }

    @Test
    void aPermitGoneFromRedisIsNotPassedOnWithAReleaseAnsweringTrue() throws Exception {
        String name = "silent-loss";
        try (UnifiedJedis ca = redis.server().newClient(Duration.ofSeconds(5));
                UnifiedJedis cb = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile a = Turnstile.builder(ca)
                        .lockCohort(32, Duration.ofSeconds(10))
                        .build();
                Turnstile b = Turnstile.builder(cb).build()) {
            RedisSemaphore sa = a.semaphore(name, 1);
            RedisSemaphore sb = b.semaphore(name, 1);
            AtomicReference<Permit> permitA = new AtomicReference<>();
            AtomicReference<Permit> permitW = new AtomicReference<>();
            AtomicBoolean lostA = new AtomicBoolean();
            AtomicBoolean lostW = new AtomicBoolean();
            AtomicReference<Boolean> releasedA = new AtomicReference<>();
            CountDownLatch releaseA = new CountDownLatch(1);
            Permit h0 = sa.acquire(Duration.ZERO, LEASE);
            Thread ta = start(() -> {
                Permit p = sa.acquire(WAIT, LEASE);
                p.onLost(e -> lostA.set(true));
                permitA.set(p);
                awaitLatch(releaseA);
                releasedA.set(p.release());
            });
            awaitQueuedLocally(ta);
            Thread tw = start(() -> {
                Permit p = sa.acquire(WAIT, LEASE);
                p.onLost(e -> lostW.set(true));
                permitW.set(p);
            });
            awaitQueuedLocally(tw);
            h0.release(); // passes to A (one call renews the permit and reserves tokens W may use)
            await().atMost(Duration.ofSeconds(5)).until(() -> permitA.get() != null);
            String id = permitA.get().id();
            // The permit vanishes from Redis before its expiry: a failover that lost its write, an
            // eviction, the server's clock stepping ahead. Another process takes the free slot.
            assertThat(redis.server().client().zrem("turnstile:sem:{" + name + "}", id))
                    .isEqualTo(1);
            Optional<Permit> other = sb.tryAcquire(Duration.ZERO, LEASE);
            System.out.println("silent-loss other process got a permit: " + other.isPresent()
                    + ", A believes it holds: " + permitA.get().isHeld());
            releaseA.countDown();
            ta.join(10_000);
            await().atMost(Duration.ofSeconds(5)).until(() -> permitW.get() != null);
            boolean releasedW = permitW.get().release(); // the chain's next call to Redis about the permit
            System.out.println("silent-loss A.release()=" + releasedA.get() + " A lost reported=" + lostA.get()
                    + "; W.release()=" + releasedW + " W lost reported=" + lostW.get()
                    + "; the other process holds " + other.map(Permit::id).orElse("-")
                    + "; Redis holders " + sa.holders());
            assertThat(other).as("the slot was free in Redis").isPresent();
            // A's release may pass the permit on without asking Redis (and answer true), but by the time
            // the chain next talks to Redis about the permit (here W's release) the loss is reported for
            // every holder since Redis last confirmed it.
            assertThat(releasedA.get() == Boolean.FALSE || lostA.get())
                    .as("A's permit was gone while A held it: its release answers false or its loss is reported")
                    .isTrue();
            assertThat(!releasedW || lostW.get())
                    .as("W's permit was gone while W held it: its release answers false or its loss is reported")
                    .isTrue();
        }
    }

    /**
     * Starts a thread that waits for a permit of {@code semaphore}, records {@code label} once it
     * holds one, runs {@code whileHeld}, and releases.
     */
    private static Thread holder(RedisSemaphore semaphore, List<String> order, String label, Runnable whileHeld) {
        return start(() -> {
            Permit p = semaphore.acquire(WAIT, LEASE);
            order.add(label);
            whileHeld.run();
            p.release();
        });
    }

    private static String queue(String name) {
        return "turnstile:sem:{" + name + "}:queue";
    }

    private static Thread start(Runnable body) {
        Thread thread = new Thread(body);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** Waits until {@code count} fair waiters hold a ticket in Redis's queue of {@code name}. */
    private static void awaitQueuedInRedis(String name, long count) {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> redis.server().client().zcard(queue(name)) == count);
    }

    /** Waits until {@code thread} waits in its process's queue of permits. */
    private static void awaitQueuedLocally(Thread thread) {
        await().pollInterval(Duration.ofMillis(1))
                .atMost(Duration.ofSeconds(10))
                .until(() -> {
                    Thread.State state = thread.getState();
                    return (state == Thread.State.TIMED_WAITING || state == Thread.State.WAITING)
                            && java.util.Arrays.stream(thread.getStackTrace())
                                    .anyMatch(frame -> frame.getClassName().contains("PermitQueues"));
                });
    }

    /** Waits until {@code age} has passed since {@code sinceNanos} (a grant's age decides a pass). */
    private static void awaitAge(long sinceNanos, Duration age) {
        await().pollInterval(Duration.ofMillis(5))
                .atMost(age.plusSeconds(5))
                .until(() -> System.nanoTime() - sinceNanos >= age.toNanos());
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A holder's work: it holds its permit this long. */
    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
