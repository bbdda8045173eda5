package dev.turnstile.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A gate nobody is in is kept for the next thread of its name, and swept out once too many are idle. */
class LocalGatesTests {

    private final LocalGates gates = new LocalGates(new RedisKeys("turnstile"), false);

    private LocalGates.Entry enter(String name) throws InterruptedException {
        LocalGates.Entry entry = this.gates.enter(name, System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
        assertThat(entry).as("entered %s", name).isNotNull();
        return entry;
    }

    @Test
    void theNextThreadOfANameJoinsItsIdleGateInsteadOfMakingOne() throws Exception {
        LocalGates.Entry first = enter("a");
        assertThat(this.gates.size()).isEqualTo(1);
        first.gate().exit(0);
        assertThat(this.gates.size()).as("names in use").isZero();
        assertThat(this.gates.kept()).as("gates kept").isEqualTo(1);
        LocalGates.Entry second = enter("a");
        assertThat(second.gate()).isSameAs(first.gate());
        assertThat(second.gate().lockKey).isEqualTo("turnstile:lock:{a}");
        second.gate().exit(0);
    }

    @Test
    void idleGatesAreSweptOnceTheMapGrowsPastTheLimit() throws Exception {
        for (int i = 0; i < 5 * LocalGates.IDLE_GATES_KEPT; i++) {
            enter("name-" + i).gate().exit(0);
            assertThat(this.gates.kept()).isLessThanOrEqualTo(LocalGates.IDLE_GATES_KEPT + 1);
        }
        assertThat(this.gates.size()).isZero();
    }

    @Test
    void aSweepLeavesEveryGateInUseAndGrowsWithThem() throws Exception {
        List<LocalGates.Entry> held = new ArrayList<>();
        for (int i = 0; i < 3 * LocalGates.IDLE_GATES_KEPT / 2; i++) {
            held.add(enter("held-" + i));
        }
        for (int i = 0; i < 4 * LocalGates.IDLE_GATES_KEPT; i++) {
            enter("passing-" + i).gate().exit(0);
        }
        assertThat(this.gates.size()).isEqualTo(held.size());
        // Still the occupant's gate: a second thread of the name waits in it, and times out.
        assertThat(this.gates.enter("held-0", System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20)))
                .isNull();
        for (LocalGates.Entry entry : held) {
            entry.gate().exit(0);
        }
        assertThat(this.gates.size()).isZero();
    }

    /**
     * Threads take a few names in turn while others pass through many names once, so that sweeps
     * run all the time; a sweep that retired a gate someone had joined would let two threads in at
     * once through a second gate for the name.
     */
    @Test
    void sweepsRacingWithThreadsOfTheSameNameNeverLetTwoIn() throws Exception {
        String[] names = {"hot-0", "hot-1", "hot-2"};
        AtomicInteger[] inside = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
        AtomicInteger overlaps = new AtomicInteger();
        AtomicLong passes = new AtomicLong();
        AtomicLong cold = new AtomicLong();
        long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            boolean sweeper = t % 3 == 2;
            workers.add(CompletableFuture.runAsync(() -> {
                try {
                    while (System.nanoTime() - end < 0) {
                        if (sweeper) {
                            enter("cold-" + cold.incrementAndGet()).gate().exit(0);
                            continue;
                        }
                        int n = ThreadLocalRandom.current().nextInt(names.length);
                        LocalGates.Entry entry = enter(names[n]);
                        if (inside[n].incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        Thread.onSpinWait();
                        inside[n].decrementAndGet();
                        entry.gate().exit(0);
                        passes.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        assertThat(cold.get()).as("names passed once").isGreaterThan(10L * LocalGates.IDLE_GATES_KEPT);
        assertThat(passes.get()).isPositive();
        assertThat(overlaps.get()).as("two threads inside one name's gate").isZero();
        assertThat(this.gates.size()).isZero();
    }
}
