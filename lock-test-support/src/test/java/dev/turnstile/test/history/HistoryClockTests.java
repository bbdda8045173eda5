package dev.turnstile.test.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.turnstile.test.redis.ChildJvm;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * History times are compared across JVMs, so every JVM of a run must read the same time: a child
 * takes its parent's anchor, and an anchor of its own is right to within microseconds even when the
 * thread taking it is preempted between its two clocks.
 */
class HistoryClockTests {

    /** The wall clock, in µs since the epoch, when the simulated monotonic clock reads 0. */
    private static final long WALL_AT_ZERO = 1_796_000_000_000_000L;

    @Test
    void anAnchorTakenAcrossAPreemptionIsTakenAgain() {
        // Each clock read takes 0.5 µs, and the thread is preempted for 8.5 ms right after its
        // first wall-clock read (as seen on a busy 2-core machine).
        SimulatedMachine machine = new SimulatedMachine(500, 8_500_000);
        HistoryClock.Anchor anchor = machine.anchorWithinAMicrosecond();
        assertThat(anchor.errorMicros()).as("the anchor's stated error, µs").isLessThanOrEqualTo(2);
        assertThat(machine.wallReads).as("wall clock reads").isGreaterThan(1);
    }

    @Test
    void anAnchorIsTheMiddleOfItsBracket() {
        // Every clock read takes 9 µs, so no bracket is tight: the tightest is kept, and the wall
        // was read in its middle.
        SimulatedMachine machine = new SimulatedMachine(9_000, 0);
        HistoryClock.Anchor anchor = machine.anchorWithinAMicrosecond();
        assertThat(anchor.errorMicros()).as("the anchor's stated error, µs").isEqualTo(10);
    }

    @Test
    void anAnchorHandedToAChildIsReadBackWhole() {
        HistoryClock.Anchor anchor = HistoryClock.anchor();
        String option = HistoryClock.childOption();
        String value = option.substring(option.indexOf('=') + 1);
        assertThat(option).startsWith("-D" + HistoryClock.ANCHOR_PROPERTY + "=");
        assertThat(HistoryClock.Anchor.parse(value)).isEqualTo(anchor);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> HistoryClock.Anchor.parse("12:34"))
                .withMessageContaining(HistoryClock.ANCHOR_PROPERTY);
    }

    @Test
    void childJvmsStartedTogetherOnABusyMachineReadTheSameTime() {
        List<ChildJvm> children = new ArrayList<>();
        try {
            long before = System.nanoTime();
            for (int i = 0; i < 6; i++) {
                children.add(ChildJvm.start(AnchorMain.class));
            }
            long mine = HistoryClock.anchor().wallMinusMonotonic();
            for (ChildJvm child : children) {
                String[] line = child.awaitLineStartingWith("ANCHOR", Duration.ofSeconds(60))
                        .split(" ");
                assertThat(Long.parseLong(line[1]) - mine)
                        .as("a child JVM's time against this one's, µs")
                        .isZero();
                // The hand-over is right only if the monotonic clock is the machine's: the child's
                // reading falls between two of this JVM's.
                assertThat(Long.parseLong(line[3]))
                        .as("the child's monotonic clock, read while this JVM's went from %d on", before)
                        .isBetween(before, System.nanoTime());
            }
        } finally {
            children.forEach(ChildJvm::close);
        }
    }

    /** A machine whose clocks advance only when read: each read takes {@code readNanos}. */
    private static final class SimulatedMachine {

        private final long readNanos;
        private final long preemptionNanos;
        private long monotonicNanos = 5_000_000;
        int wallReads;

        SimulatedMachine(long readNanos, long preemptionNanos) {
            this.readNanos = readNanos;
            this.preemptionNanos = preemptionNanos;
        }

        long monotonic() {
            this.monotonicNanos += this.readNanos;
            return this.monotonicNanos;
        }

        /**
         * The wall clock, read at the end of its read as the monotonic clock is; the first read is
         * followed by a preemption.
         */
        Instant wall() {
            this.monotonicNanos += this.readNanos;
            Instant wall = Instant.EPOCH.plusNanos(WALL_AT_ZERO * 1_000 + this.monotonicNanos);
            if (++this.wallReads == 1) {
                this.monotonicNanos += this.preemptionNanos;
            }
            return wall;
        }

        /** Takes an anchor on this machine and checks that it is within 1 µs of the wall clock. */
        HistoryClock.Anchor anchorWithinAMicrosecond() {
            HistoryClock.Anchor anchor = HistoryClock.Anchor.take(this::monotonic, this::wall);
            assertThat(Math.abs(error(anchor)))
                    .as("how far the anchor is from the wall clock, µs")
                    .isLessThanOrEqualTo(1);
            return anchor;
        }

        /** How far {@code anchor} puts the current moment from the wall clock, µs. */
        long error(HistoryClock.Anchor anchor) {
            return anchor.micros(this.monotonicNanos) - (WALL_AT_ZERO + this.monotonicNanos / 1_000);
        }
    }

    /** Takes its anchor while four threads keep the machine busy and prints it. */
    public static final class AnchorMain {

        public static void main(String[] args) {
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
            }
            HistoryClock.Anchor anchor = HistoryClock.anchor();
            System.out.println(
                    "ANCHOR " + anchor.wallMinusMonotonic() + " " + anchor.errorMicros() + " " + System.nanoTime());
            System.out.flush();
        }
    }
}
