package dev.turnstile.redis.semaphore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * A fair semaphore's release hands the freed permit to the head of the queue, which takes it at its
 * full lease with its next call. Hunts for what could go wrong there: a release racing a head that
 * gives up (the permit must not leak, the limit must hold), a head whose process dies with the
 * permit handed to it, and the order of grants across processes.
 */
class FairSemaphoreHandOffIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void releasesRacingHeadsThatGiveUpInTwoJvmsNeitherLeakAPermitNorExceedTheLimit() throws Exception {
        String name = "race";
        int limit = 3;
        ChildJvm child = redis.startChild(
                SemaphoreWorkerMain.class, "race-fair", port(), name, Integer.toString(limit), "12", "4000");
        child.awaitLineStartingWith("READY", Duration.ofSeconds(30));
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            RedisSemaphore semaphore = turnstile.semaphore(name, limit).fair();
            child.send("go");
            SemaphoreWorkerMain.FairRace.Result parent =
                    SemaphoreWorkerMain.FairRace.run(semaphore, client, 12, Duration.ofSeconds(4));
            String[] result =
                    child.awaitLineStartingWith("RESULT", Duration.ofMinutes(1)).split(" ");
            child.awaitLineStartingWith("DONE", Duration.ofSeconds(10));
            long childMax = Long.parseLong(result[1]);
            long childGranted = Long.parseLong(result[2]);
            long childTimedOut = Long.parseLong(result[3]);
            System.out.printf(
                    "fair race: parent %s, child max %d granted %d timed out %d%n",
                    parent, childMax, childGranted, childTimedOut);

            assertThat(Math.max(parent.maxHolders(), childMax))
                    .as("most holders counted at once, over both JVMs")
                    .isBetween(1L, (long) limit);
            assertThat(parent.granted() + childGranted).as("permits granted").isPositive();
            assertThat(parent.timedOut() + childTimedOut)
                    .as("waits that gave up (the race the test hunts for)")
                    .isPositive();
            // Every waiter has returned: a permit handed to one that gave up was freed when it left,
            // not left to expire with its place.
            assertThat(semaphore.holders()).as("permits still held").isEmpty();
            assertThat(client.zcard("turnstile:sem:{" + name + "}:queue"))
                    .as("places left in the queue")
                    .isZero();
            assertThat(client.get(SemaphoreWorkerMain.HolderCount.KEY)).isEqualTo("0");
        }
    }

    @Test
    void aPermitHandedToAWaiterWhoseProcessDiesIsFreedWithinTheWaiterTtl() throws Exception {
        String name = "handed";
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            RedisSemaphore semaphore = turnstile.semaphore(name, 1).fair();
            Permit held = semaphore.acquire(Duration.ZERO, null);
            ChildJvm child = redis.startChild(SemaphoreWorkerMain.class, "wait-fair", port(), name, "1");
            child.awaitLineStartingWith("WAITING", Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(10)).until(() -> client.zcard(queue(name)) == 1);

            // Frozen, the child cannot take the permit handed to it; then it dies with it.
            long frozen = System.nanoTime();
            child.pause();
            held.release();
            List<PermitHolder> holders = semaphore.holders();
            assertThat(holders).as("the permit, handed to the frozen head").hasSize(1);
            assertThat(holders.get(0).id()).isNotEqualTo(held.id());
            assertThat(client.zcard(queue(name))).as("the head left the queue").isZero();
            child.kill();

            AtomicLong servedAt = new AtomicLong();
            CompletableFuture<Optional<Permit>> next = CompletableFuture.supplyAsync(() -> {
                Optional<Permit> permit = semaphore.tryAcquire(Duration.ofSeconds(20), null);
                servedAt.set(System.nanoTime());
                return permit;
            });
            await().during(Duration.ofSeconds(1))
                    .atMost(Duration.ofSeconds(2))
                    .alias("the permit handed to the dead head is still counted")
                    .until(() -> !next.isDone());
            Optional<Permit> served = next.get(10, TimeUnit.SECONDS);
            assertThat(served).as("the permit comes back").isPresent();
            Duration delay = Duration.ofNanos(servedAt.get() - frozen);
            System.out.println("Fair semaphore: a permit handed to a dead waiter came back " + delay.toMillis()
                    + " ms after its process froze");
            // The handed permit lives as long as the head's place would have: 5 s after its last
            // call, which came before it froze; 500 ms more for the next waiter's call.
            assertThat(delay).isLessThanOrEqualTo(Duration.ofMillis(5_500));
            served.get().release();
        }
    }

    @Test
    void waitersOfTwoJvmsArrivingInTurnAreServedInArrivalOrder() throws Exception {
        String name = "fifo";
        ChildJvm child = redis.startChild(SemaphoreWorkerMain.class, "arrivals-fair", port(), name, "1");
        child.awaitLineStartingWith("READY", Duration.ofSeconds(30));
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            RedisSemaphore semaphore = turnstile.semaphore(name, 1).fair();
            Permit held = semaphore.acquire(Duration.ZERO, null);
            List<String> arrivals = new ArrayList<>();
            List<Thread> parentWaiters = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                // Two from one JVM, then two from the other: turns within and across processes.
                String label = (i / 2 % 2 == 0 ? "parent-" : "child-") + i;
                if (label.startsWith("parent")) {
                    Thread waiter = new Thread(() -> SemaphoreWorkerMain.FairRace.takeTurn(semaphore, client, label));
                    waiter.start();
                    parentWaiters.add(waiter);
                } else {
                    child.send("wait " + label);
                }
                arrivals.add(label);
                int queued = i + 1;
                await().atMost(Duration.ofSeconds(10)).until(() -> client.zcard(queue(name)) == queued);
            }
            held.release();
            for (Thread waiter : parentWaiters) {
                waiter.join(TimeUnit.SECONDS.toMillis(30));
            }
            child.send("end");
            child.awaitLineStartingWith("DONE", Duration.ofSeconds(30));
            assertThat(client.lrange(SemaphoreWorkerMain.FairRace.ORDER, 0, -1))
                    .as("grants in arrival order")
                    .containsExactlyElementsOf(arrivals);
        }
    }

    private static String queue(String name) {
        return "turnstile:sem:{" + name + "}:queue";
    }

    private static String port() {
        return Integer.toString(redis.server().port());
    }
}
