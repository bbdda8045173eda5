package dev.turnstile.redis.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.turnstile.redis.AwakeWaiting;
import dev.turnstile.redis.Lease;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@code awakeWaiting}: on a hot key, threads queued behind another thread of this process are seen
 * waiting awake with ALWAYS and never with NEVER, while the lock passes between them either way.
 */
class AwakeWaitingIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final int THREADS = 4;

    @Test
    void alwaysLetsQueuedThreadsWaitAwake() throws Exception {
        assumeTrue(Runtime.getRuntime().availableProcessors() > 1, "one processor: nobody waits awake");
        assertThat(awakeSightings(AwakeWaiting.ALWAYS)).isPositive();
    }

    @Test
    void neverParksEveryQueuedThreadAtOnce() throws Exception {
        assertThat(awakeSightings(AwakeWaiting.NEVER)).isZero();
    }

    /**
     * Runs {@link #THREADS} threads on one key for a second, looking at their stacks meanwhile;
     * returns how often one was seen waiting awake, after checking that they all took the lock.
     */
    private static long awakeSightings(AwakeWaiting mode) throws Exception {
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile turnstile =
                        Turnstile.builder(client).awakeWaiting(mode).build()) {
            assertThat(turnstile.diagnostics().queuedThreadsWaitAwake())
                    .as("diagnostics")
                    .isEqualTo(mode == AwakeWaiting.ALWAYS);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong acquisitions = new AtomicLong();
            List<Thread> workers = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                Thread worker = new Thread(() -> {
                    while (!stop.get()) {
                        try (Lease lease = turnstile
                                .lock("awake-" + mode)
                                .tryAcquire(Duration.ofSeconds(10), Duration.ofSeconds(30))
                                .orElseThrow()) {
                            acquisitions.incrementAndGet();
                        }
                    }
                });
                workers.add(worker);
                worker.start();
            }
            long sightings = 0;
            long until = System.nanoTime() + Duration.ofSeconds(1).toNanos();
            while (System.nanoTime() - until < 0) {
                for (Thread worker : workers) {
                    if (Arrays.stream(worker.getStackTrace())
                            .anyMatch(frame -> frame.getMethodName().equals("stayAwake"))) {
                        sightings++;
                    }
                }
                Thread.sleep(1);
            }
            stop.set(true);
            for (Thread worker : workers) {
                worker.join(10_000);
                assertThat(worker.isAlive()).as("worker ended").isFalse();
            }
            assertThat(acquisitions.get()).as("acquisitions with " + mode).isGreaterThan(THREADS);
            return sightings;
        }
    }
}
