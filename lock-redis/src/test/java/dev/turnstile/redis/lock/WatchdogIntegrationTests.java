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
