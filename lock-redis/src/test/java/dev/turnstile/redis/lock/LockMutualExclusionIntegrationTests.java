package dev.turnstile.redis.lock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/** Hunts for two holders at once: threads of two JVMs, one counter that only a lock keeps exact. */
class LockMutualExclusionIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void sixteenThreadsInEachOfTwoJvmsNeverHoldTheLockTogether() throws Exception {
        int perProcess = 2_500;
        ChildJvm child = redis.startChild(
                LockHolderMain.class,
                "count",
                Integer.toString(redis.server().port()),
                "counter-lock",
                "16",
                Integer.toString(perProcess));
        child.awaitLineStartingWith("READY", Duration.ofSeconds(30));

        List<long[]> intervals;
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            child.send("go");
            intervals = new ArrayList<>(
                    LockHolderMain.CounterWork.run(turnstile.lock("counter-lock"), client, "counter", 16, perProcess));
        }
        child.awaitLineStartingWith("DONE", Duration.ofMinutes(3));
        for (String line : child.lines()) {
            if (line.startsWith("INTERVAL ")) {
                String[] parts = line.split(" ");
                intervals.add(new long[] {Long.parseLong(parts[1]), Long.parseLong(parts[2])});
            }
        }

        assertThat(redis.server().client().get("counter")).isEqualTo(Integer.toString(2 * perProcess));
        assertThat(intervals).hasSize(2 * perProcess);
        intervals.sort(Comparator.comparingLong(interval -> interval[0]));
        int overlaps = 0;
        for (int i = 1; i < intervals.size(); i++) {
            if (intervals.get(i)[0] < intervals.get(i - 1)[1]) {
                overlaps++;
            }
        }
        assertThat(overlaps).as("hold intervals that overlap the previous one").isZero();
        long childHolds = child.lines().stream()
                .filter(line -> line.startsWith("INTERVAL "))
                .count();
        assertThat(childHolds).isEqualTo(perProcess);
    }

    @Test
    void aBusyProcessDoesNotStarveAnother() throws Exception {
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile first = Turnstile.builder(client).build();
                Turnstile second = Turnstile.builder(client).build()) {
            AtomicInteger firstCount = new AtomicInteger();
            AtomicInteger secondCount = new AtomicInteger();
            AtomicBoolean running = new AtomicBoolean(true);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<?>> workers = new ArrayList<>();
            // Every thread starts at once: on a busy machine, threads of one process started first
            // would take a short run's holds before the other process's threads exist.
            CyclicBarrier start = new CyclicBarrier(8);
            for (int i = 0; i < 8; i++) {
                Turnstile process = i < 4 ? first : second;
                AtomicInteger count = i < 4 ? firstCount : secondCount;
                workers.add(pool.submit(() -> {
                    start.await();
                    while (running.get() && firstCount.get() + secondCount.get() < 8_000) {
                        try (Lease lease = process.lock("fair-share").acquire(Duration.ofSeconds(30), null)) {
                            count.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get();
            }
            running.set(false);
            pool.shutdown();
            int total = firstCount.get() + secondCount.get();
            // Local hand-offs are bounded, so the process that is not holding still gets turns.
            assertThat(firstCount.get()).as("first process of %d", total).isGreaterThan(total / 10);
            assertThat(secondCount.get()).as("second process of %d", total).isGreaterThan(total / 10);
        }
    }
}
