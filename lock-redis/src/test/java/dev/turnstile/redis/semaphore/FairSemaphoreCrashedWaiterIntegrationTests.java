package dev.turnstile.redis.semaphore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * A fair semaphore serves waiters in ticket order; a waiter whose process crashed keeps its place
 * only until its liveness lapses (5 s), so it delays the queue by at most that much.
 */
class FairSemaphoreCrashedWaiterIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aWaiterKilledInTheQueueLosesItsPlaceWithinFiveSecondsAndTheNextWaiterIsServed() throws Exception {
        String queue = "turnstile:sem:{partner}:queue";
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile holderSide = Turnstile.builder(client).build();
                Turnstile nextSide = Turnstile.builder(client).build()) {
            Permit held = holderSide.semaphore("partner", 1).fair().acquire(Duration.ZERO, null);
            ChildJvm crashing = redis.startChild(
                    SemaphoreWorkerMain.class,
                    "wait-fair",
                    Integer.toString(redis.server().port()),
                    "partner",
                    "1");
            crashing.awaitLineStartingWith("WAITING", Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(10)).until(() -> client.zcard(queue) == 1);
            java.util.concurrent.atomic.AtomicLong servedAt = new java.util.concurrent.atomic.AtomicLong();
            CompletableFuture<Optional<Permit>> next = CompletableFuture.supplyAsync(() -> {
                Optional<Permit> permit =
                        nextSide.semaphore("partner", 1).fair().tryAcquire(Duration.ofSeconds(20), null);
                servedAt.set(System.nanoTime());
                return permit;
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> client.zcard(queue) == 2);

            long killing = System.nanoTime();
            crashing.kill();
            held.release();

            await().during(Duration.ofSeconds(1))
                    .atMost(Duration.ofSeconds(2))
                    .alias("the crashed waiter, first in line, still holds its place")
                    .until(() -> !next.isDone());
            Optional<Permit> served = next.get(8, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(served)
                    .as("the next waiter is served once the crashed one's place lapses")
                    .isPresent();
            Duration delay = Duration.ofNanos(servedAt.get() - killing);
            System.out.println("Fair semaphore: the next waiter was served " + delay.toMillis()
                    + " ms after the waiter ahead of it was killed");
            // The crashed waiter's place lapses 5 s after its last call, which came before the kill;
            // 500 ms more for the next waiter's wake-up and call.
            assertThat(delay)
                    .as("the queue is delayed at most 5 s (plus 500 ms) by the crashed waiter")
                    .isLessThanOrEqualTo(Duration.ofMillis(5_500));
            assertThat(client.zcard(queue))
                    .as("the crashed waiter's place is gone")
                    .isZero();
            served.get().release();
        }
    }
}
