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
    void theWatchdogRenewsEveryThirdOfTheLease() {
        // A 900 ms lease held for 3 s, its key's TTL read every 5 ms by another client: each rise of
        // the TTL is a renewal. A third of the lease is 300 ms; the bound allows 200 ms of scheduling.
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(2));
                UnifiedJedis observer = redis.server().newClient(Duration.ofSeconds(2));
                Turnstile turnstile = Turnstile.builder(client)
                        .defaultLease(Duration.ofMillis(900))
                        .build()) {
            long start = System.nanoTime(); // before the grant, from which the first renewal counts
            Lease lease = turnstile.lock("period").acquire(Duration.ZERO, null);
            List<Long> renewals = new java.util.ArrayList<>();
            long lowest = Long.MAX_VALUE;
            long previous = observer.pttl("turnstile:lock:{period}");
            while (System.nanoTime() - start < Duration.ofSeconds(3).toNanos()) {
                java.util.concurrent.locks.LockSupport.parkNanos(
                        Duration.ofMillis(5).toNanos());
                long ttl = observer.pttl("turnstile:lock:{period}");
                if (ttl > previous + 50) {
                    renewals.add(System.nanoTime());
                }
                lowest = Math.min(lowest, ttl);
                previous = ttl;
            }
            lease.release();
            renewals.add(0, start);
            List<Long> gaps = new java.util.ArrayList<>();
            for (int i = 1; i < renewals.size(); i++) {
                gaps.add(Duration.ofNanos(renewals.get(i) - renewals.get(i - 1)).toMillis());
            }
            System.out.println("Watchdog of a 900 ms lease: ms between renewals " + gaps + ", lowest TTL " + lowest);
            assertThat(gaps)
                    .as("ms between renewals")
                    .allSatisfy(gap -> assertThat(gap).isBetween(300L - 100L, 300L + 200L));
            assertThat(gaps.size()).as("renewals in 3 s").isBetween(3_000 / 500, 3_000 / 200);
            assertThat(lowest).as("lowest TTL seen, ms").isGreaterThan(900L - 300L - 200L);
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
}
