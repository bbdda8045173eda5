package dev.turnstile.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.semaphore.RedisSemaphore;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Nothing is left behind per idle name: after 10,000 lock names and 2,000 semaphore names were
 * each taken and released once, Redis holds at most one fencing counter per name, every key with a
 * time to live, and nothing at all once the leases and the fence retention are over.
 */
class IdleNamesIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void tenThousandLockNamesAndTwoThousandSemaphoresLeaveNothingOnceTheirLeasesAreOver() throws Exception {
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile turnstile = Turnstile.builder(client)
                        .defaultLease(Duration.ofMillis(500))
                        .fenceRetention(Duration.ofMillis(300))
                        .build()) {
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<?>> work = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                work.add(pool.submit(() -> {
                    for (int i = thread; i < 10_000; i += 8) {
                        turnstile
                                .lock("item:" + i)
                                .acquire(Duration.ZERO, Duration.ofMillis(500))
                                .release();
                    }
                    for (int i = thread; i < 1_000; i += 8) {
                        RedisSemaphore semaphore = turnstile.semaphore("api:" + i, 2);
                        semaphore.acquire(Duration.ZERO, null).release();
                        semaphore.fair().acquire(Duration.ZERO, null).release();
                    }
                    return null;
                }));
            }
            for (Future<?> done : work) {
                done.get();
            }
            pool.shutdown();

            List<String> left = keys(client);
            assertThat(left.size())
                    .as("at most one fencing counter per name (and a fair ticket counter)")
                    .isLessThanOrEqualTo(10_000 + 2 * 1_000 + 1_000);
            assertThat(left)
                    .as("no lock or holder key is left after release")
                    .noneMatch(key -> key.startsWith("turnstile:lock:"));
            for (String key : left.subList(0, Math.min(500, left.size()))) {
                // -2: it expired since the scan; -1 would be a key without a time to live.
                assertThat(client.pttl(key)).as("%s has a time to live", key).isNotEqualTo(-1L);
            }
            System.out.printf("idle names: %d keys right after 12,000 names%n", left.size());
            // The leases (500 ms) and the retention (300 ms), and the fair queue's waiter ttl (5 s).
            await().atMost(Duration.ofSeconds(10)).until(() -> keys(client).isEmpty());
        }
    }

    private static List<String> keys(UnifiedJedis client) {
        List<String> keys = new ArrayList<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page =
                    client.scan(cursor, new ScanParams().match("turnstile:*").count(1000));
            keys.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return keys;
    }
}
