package dev.turnstile.test.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.test.redis.ChildJvm;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * History times are compared across JVMs, so every JVM's anchor must agree with the wall clock to
 * within microseconds, even when the thread taking it is preempted between its two clocks.
 */
class HistoryClockTests {

    /** The wall clock, in µs since the epoch, when the simulated monotonic clock reads 0. */
    private static final long WALL_AT_ZERO = 1_796_000_000_000_000L;

    @Test
    void anAnchorTakenAcrossAPreemptionIsTakenAgain() {
        // A simulated machine: each clock read takes 1 µs, and the thread is preempted for 8.5 ms
        // right after its first wall-clock read (as seen on a busy 2-core machine).
        long[] monotonic = {5_000_000};
        int[] wallReads = {0};
        HistoryClock.Anchor anchor = HistoryClock.Anchor.take(
                () -> {
                    monotonic[0] += 1_000;
                    return monotonic[0];
                },
                () -> {
                    monotonic[0] += 1_000;
                    Instant wall = Instant.EPOCH.plusNanos(WALL_AT_ZERO * 1_000 + monotonic[0]);
                    if (++wallReads[0] == 1) {
                        monotonic[0] += 8_500_000;
                    }
                    return wall;
                });

        long error = anchor.micros(monotonic[0]) - (WALL_AT_ZERO + monotonic[0] / 1_000);
        assertThat(anchor.errorMicros()).as("the anchor's stated error, µs").isLessThanOrEqualTo(20);
        assertThat(Math.abs(error))
                .as("how far the anchor is from the wall clock, µs")
                .isLessThanOrEqualTo(anchor.errorMicros());
        assertThat(wallReads[0]).as("wall clock reads").isGreaterThan(1);
    }

    @Test
    void jvmsStartedTogetherOnABusyMachineAgreeOnTheTime() {
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int i = 0; i < 6; i++) {
                children.add(ChildJvm.start(AnchorMain.class));
            }
            long mine = HistoryClock.anchor().wallMinusMonotonic();
            for (ChildJvm child : children) {
                String[] line = child.awaitLineStartingWith("ANCHOR", Duration.ofSeconds(60))
                        .split(" ");
                long theirs = Long.parseLong(line[1]);
                long bound = HistoryClock.anchorError() + Long.parseLong(line[2]) + 2;
                assertThat(Math.abs(theirs - mine))
                        .as("a child JVM's anchor against this one's, µs (bound %d)", bound)
                        .isLessThanOrEqualTo(bound);
            }
        } finally {
            children.forEach(ChildJvm::close);
        }
    }

    /** Takes its anchor while four threads keep the machine busy and prints it. */
    public static final class AnchorMain {

        public static void main(String[] args) throws InterruptedException {
            List<Thread> busy = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Thread thread = new Thread(() -> {
                    long x = 0;
                    for (long k = 0; k < 200_000_000L; k++) {
                        x += k * 31;
                    }
                    if (x == 42) {
                        System.out.print("");
                    }
                });
                thread.setDaemon(true);
                thread.start();
                busy.add(thread);
            }
            HistoryClock.Anchor anchor = HistoryClock.anchor();
            System.out.println("ANCHOR " + anchor.wallMinusMonotonic() + " " + anchor.errorMicros());
            System.out.flush();
        }
    }
}
