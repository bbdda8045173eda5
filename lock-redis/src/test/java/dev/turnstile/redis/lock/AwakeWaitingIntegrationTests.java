package dev.turnstile.redis.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
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

    /** The method a queued thread waits awake in. */
    private static final String AWAKE_FRAME = "stayAwake";

    @Test
    void alwaysLetsQueuedThreadsWaitAwake() throws Exception {
        assumeTrue(Runtime.getRuntime().availableProcessors() > 1, "one processor: nobody waits awake");
        assertThat(awakeSightings(AwakeWaiting.ALWAYS, Duration.ofSeconds(10), true))
                .isPositive();
    }

    @Test
    void neverParksEveryQueuedThreadAtOnce() throws Exception {
        assertThat(Class.forName("dev.turnstile.redis.internal.QueuedThread")
                        .getDeclaredMethod(AWAKE_FRAME, long.class))
                .as("the frame looked for is the wait awake's")
                .isNotNull();
        assertThat(awakeSightings(AwakeWaiting.NEVER, Duration.ofSeconds(1), false))
                .isZero();
    }

    /**
     * Runs {@link #THREADS} threads on one key for {@code looking} (or until one is seen awake, if
     * {@code untilSeen}), looking at their stacks meanwhile; returns how often one was seen waiting
     * awake, after checking that they all took the lock.
     */
    private static long awakeSightings(AwakeWaiting mode, Duration looking, boolean untilSeen) throws Exception {
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
            AtomicLong sightings = new AtomicLong();
            try {
                if (untilSeen) {
                    await().atMost(looking)
                            .pollInterval(Duration.ofMillis(1))
                            .until(() -> look(workers, sightings) > 0);
                } else {
                    // Looked at every millisecond for the whole time: one sighting and it never holds again.
                    await().during(looking)
                            .atMost(looking.multipliedBy(3))
                            .pollInterval(Duration.ofMillis(1))
                            .until(() -> look(workers, sightings) == 0);
                }
            } finally {
                stop.set(true);
                for (Thread worker : workers) {
                    worker.join(10_000);
                    assertThat(worker.isAlive()).as("worker ended").isFalse();
                }
            }
            assertThat(acquisitions.get()).as("acquisitions with " + mode).isGreaterThan(THREADS);
            return sightings.get();
        }
    }

    /** Looks at the workers' stacks once; adds the ones waiting awake to {@code sightings} and returns its total. */
    private static long look(List<Thread> workers, AtomicLong sightings) {
        for (Thread worker : workers) {
            if (Arrays.stream(worker.getStackTrace())
                    .anyMatch(frame -> frame.getMethodName().equals(AWAKE_FRAME))) {
                sightings.incrementAndGet();
            }
        }
        return sightings.get();
    }
}
