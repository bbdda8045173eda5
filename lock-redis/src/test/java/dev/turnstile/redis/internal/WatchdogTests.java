package dev.turnstile.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Deadline checks deferred to a batch run once each, on the deadline thread, soon. */
class WatchdogTests {

    private final Watchdog watchdog = new Watchdog(1);

    @AfterEach
    void close() {
        this.watchdog.close();
    }

    /**
     * Rounds of checks deferred from several threads while batches run; each round ends with no
     * check deferred after it, so a check that slipped in as a batch finished, and was left for a
     * batch nobody scheduled, would never run.
     */
    @Test
    void everyCheckDeferredFromManyThreadsRunsOnceOnTheDeadlineThread() throws Exception {
        Set<String> runOn = ConcurrentHashMap.newKeySet();
        for (int round = 0; round < 40; round++) {
            int threads = 3;
            int each = 3_000;
            AtomicInteger[] runs = new AtomicInteger[threads * each];
            List<CompletableFuture<Void>> deferring = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t * each;
                deferring.add(CompletableFuture.runAsync(() -> {
                    for (int i = first; i < first + each; i++) {
                        AtomicInteger count = new AtomicInteger();
                        runs[i] = count;
                        this.watchdog.deferDeadline(() -> {
                            count.incrementAndGet();
                            runOn.add(Thread.currentThread().getName());
                        });
                        for (int spin = ThreadLocalRandom.current().nextInt(200); spin > 0; spin--) {
                            Thread.onSpinWait();
                        }
                    }
                }));
            }
            CompletableFuture.allOf(deferring.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(2))
                    .until(() -> Arrays.stream(runs).allMatch(count -> count.get() > 0));
            assertThat(runs).allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
        }
        assertThat(runOn).allSatisfy(name -> assertThat(name).startsWith("turnstile-deadline-"));
        // A batch is not a lease's timer (one scheduled by a late flag read may still be pending).
        await().atMost(Duration.ofSeconds(2)).until(() -> this.watchdog.scheduledTasks() == 0);
    }

    @Test
    void aCheckDeferredAfterABatchRanGetsABatchOfItsOwn() {
        AtomicInteger runs = new AtomicInteger();
        this.watchdog.deferDeadline(runs::incrementAndGet);
        await().atMost(Duration.ofSeconds(2)).until(() -> runs.get() == 1);
        this.watchdog.deferDeadline(runs::incrementAndGet);
        await().atMost(Duration.ofSeconds(2)).until(() -> runs.get() == 2);
    }

    @Test
    void aFailingCheckLeavesTheRestOfItsBatchToRun() {
        AtomicInteger runs = new AtomicInteger();
        for (int i = 0; i < 50; i++) {
            this.watchdog.deferDeadline(() -> {
                throw new IllegalStateException("a check that fails");
            });
            this.watchdog.deferDeadline(() -> {
                throw new AssertionError("a listener's error");
            });
            this.watchdog.deferDeadline(runs::incrementAndGet);
        }
        await().atMost(Duration.ofSeconds(2)).until(() -> runs.get() == 50);
    }

    @Test
    void aClosedWatchdogRefusesADeferredCheckAsItRefusesATimer() {
        this.watchdog.close();
        assertThatThrownBy(() -> this.watchdog.deferDeadline(() -> {}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> this.watchdog.scheduleDeadline(() -> {}, 1_000))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }
}
