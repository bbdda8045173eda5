package dev.turnstile.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TurnPaceTests {

    private static final long MICROS = TimeUnit.MICROSECONDS.toNanos(1);
    private static final long MILLIS = TimeUnit.MILLISECONDS.toNanos(1);

    /** The clock of the pace {@link #occupantsOf} built: its last pass. */
    private long now;

    @Test
    void nobodyWaitsAwakeUntilOneOccupantHasPassedTheGateToTheNext() {
        TurnPace pace = new TurnPace();
        assertThat(pace.awakeNanos(1, 0)).isZero();
        pace.entered(1_000 * MICROS);
        assertThat(pace.awakeNanos(1, 1_001 * MICROS))
                .as("one occupant, no tenure ended yet")
                .isZero();
        pace.passed(1_010 * MICROS);
        assertThat(pace.awakeNanos(1, 1_011 * MICROS)).isEqualTo(4 * 10 * MICROS);
    }

    @Test
    void anyClockReadingCountsAsAnEntryZeroAndNegativeOnesToo() {
        for (long start : new long[] {0, -5 * MICROS, Long.MAX_VALUE - 5 * MICROS}) {
            TurnPace pace = new TurnPace();
            pace.entered(start);
            pace.passed(start + 10 * MICROS);
            assertThat(pace.awakeNanos(1, start + 11 * MICROS))
                    .as("entered at %d", start)
                    .isEqualTo(40 * MICROS);
        }
    }

    @Test
    void aQueuedThreadWaitsAwakeFourTimesItsExpectedWaitAtMostTheMaximum() {
        TurnPace pace = occupantsOf(10 * MICROS);
        assertThat(pace.awakeNanos(3, this.now))
                .as("3 ahead × 10 µs, four times")
                .isEqualTo(120 * MICROS);
        assertThat(pace.awakeNanos(7, this.now)).as("70 µs expected: capped").isEqualTo(TurnPace.MAX_AWAKE_NANOS);
        assertThat(pace.awakeNanos(20, this.now))
                .as("200 µs expected: still awake")
                .isEqualTo(TurnPace.MAX_AWAKE_NANOS);
        assertThat(pace.awakeNanos(21, this.now))
                .as("210 µs expected: parks at once")
                .isZero();
        assertThat(pace.awakeNanos(Integer.MAX_VALUE, this.now))
                .as("no overflow")
                .isZero();
    }

    @Test
    void behindLongHoldsAThreadParksAtOnce() {
        TurnPace pace = occupantsOf(5 * MILLIS);
        assertThat(pace.awakeNanos(1, this.now)).isZero();
    }

    @Test
    void aThreadThatQueuesDuringALongHoldParksAtOnceThoughTheHoldsBeforeWereShort() {
        TurnPace pace = occupantsOf(10 * MICROS);
        assertThat(pace.awakeNanos(1, this.now + 150 * MICROS)).isEqualTo(40 * MICROS);
        assertThat(pace.awakeNanos(1, this.now + 250 * MICROS))
                .as("held 250 µs already")
                .isZero();
    }

    @Test
    void theTenureFollowsTheRecentOccupantsAndForgetsTheTimeTheGateWasFree() {
        TurnPace pace = occupantsOf(10 * MICROS);
        // The gate stays free for a second: that is nobody's tenure.
        pace.freed();
        long at = this.now + TimeUnit.SECONDS.toNanos(1);
        pace.entered(at);
        at += 10 * MICROS;
        pace.passed(at);
        assertThat(pace.awakeNanos(1, at)).isEqualTo(40 * MICROS);
        // Holds grow to 1 ms: within a few of them nobody waits awake any more.
        for (int i = 0; i < 8; i++) {
            at += MILLIS;
            pace.passed(at);
        }
        assertThat(pace.awakeNanos(1, at)).isZero();
        // Short holds again: a few dozen bring the average back, whatever the long ones were.
        for (int i = 0; i < 40; i++) {
            at += 10 * MICROS;
            pace.passed(at);
        }
        assertThat(pace.awakeNanos(1, at)).isPositive();
    }

    /** A pace whose occupants have each held for {@code tenureNanos}, ending at {@link #now}. */
    private TurnPace occupantsOf(long tenureNanos) {
        TurnPace pace = new TurnPace();
        this.now = 1_000 * MICROS;
        pace.entered(this.now);
        for (int i = 0; i < 4; i++) {
            this.now += tenureNanos;
            pace.passed(this.now);
        }
        return pace;
    }
}
