package dev.turnstile.redis.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseLostEvent;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

class WatchdogIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void holderWorkingThreeTimesItsLeaseKeepsTheLockThroughout() {
        List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(2));
                Turnstile holder = Turnstile.builder(client)
                        .defaultLease(Duration.ofMillis(600))
                        .listener(lost::add)
                        .build();
                Turnstile rival = Turnstile.builder(client).build()) {
            Lease lease = holder.lock("long-work").acquire(Duration.ZERO, null);
            long start = System.nanoTime();
            int refusals = 0;
            while (System.nanoTime() - start < Duration.ofMillis(1800).toNanos()) {
                assertThat(rival.lock("long-work").tryAcquire()).isEmpty();
                assertThat(lease.isHeld()).isTrue();
                refusals++;
            }
            assertThat(refusals).isPositive();
            assertThat(lost).isEmpty();
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void thousandWatchdogRoundsLeaveNoKeysAndNoRenewalsBehind() {
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(2));
                Turnstile turnstile = Turnstile.builder(client)
                        .defaultLease(Duration.ofMillis(300))
                        .build()) {
            for (int i = 0; i < 1_000; i++) {
                try (Lease lease = turnstile.lock("round-" + (i % 10)).acquire(Duration.ofSeconds(5), null)) {
                    assertThat(lease.isHeld()).isTrue();
                }
            }
            assertThat(turnstile.diagnostics().scheduledTimers()).isZero();
            assertThat(client.keys("turnstile:lock:*")).isEmpty();
            long pexpires = redis.server().commandCounts().getOrDefault("pexpire", 0L);
            // Three lease times with nothing held: a leaked renewal would run PEXPIRE in that time.
            await().during(Duration.ofMillis(900))
                    .atMost(Duration.ofSeconds(2))
                    .until(() -> redis.server().commandCounts().getOrDefault("pexpire", 0L) == pexpires);
        }
    }

    /**
     * Leases of a few seconds have their renewal and deadline check due later than the watchdog
     * schedules at once (it keeps such tasks aside until shortly before, so that the many leases
     * released long before never reach a scheduler): the renewal still comes in time, the loss of a
     * fixed lease is still reported at its deadline, and released leases leave nothing scheduled.
     */
    @Test
    void leasesOfSecondsAreRenewedAndWatchedThoughTheirTimersAreKeptAsideAtFirst() {
        List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(2));
                Turnstile turnstile = Turnstile.builder(client)
                        .defaultLease(Duration.ofMillis(4_500))
                        .listener(lost::add)
                        .build();
                Turnstile rival = Turnstile.builder(client).build()) {
            for (int i = 0; i < 1_000; i++) {
                turnstile
                        .lock("released-" + (i % 10))
                        .acquire(Duration.ofSeconds(5), null)
                        .release();
            }
            assertThat(turnstile.diagnostics().scheduledTimers())
                    .as("released leases leave no renewal or deadline check")
                    .isZero();

            // Renewed at a third of 4.5 s, and held past the 4.5 s of its grant.
            Lease renewed = turnstile.lock("renewed").acquire(Duration.ZERO, null);
            // Never released: lost when its 1.5 s have passed.
            Lease fixed = turnstile.lock("fixed").acquire(Duration.ZERO, Duration.ofMillis(1_500));
            long start = System.nanoTime();
            await().atMost(Duration.ofMillis(1_500 + 500))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> lost.stream().anyMatch(event -> event.name().equals("fixed")));
            assertThat(System.nanoTime() - start)
                    .as("the fixed lease's loss is told at its deadline, not before")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(1_400).toNanos());
            assertThat(fixed.isHeld()).isFalse();
            while (System.nanoTime() - start < Duration.ofMillis(6_000).toNanos()) {
                assertThat(renewed.isHeld()).isTrue();
                assertThat(rival.lock("renewed").tryAcquire()).isEmpty();
                LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
            }
            assertThat(lost).extracting(LeaseLostEvent::name).containsExactly("fixed");
            assertThat(renewed.release()).isTrue();
        }
    }
}
