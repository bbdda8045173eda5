package dev.turnstile.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TurnPaceTests {

    private static final long MICROS = TimeUnit.MICROSECONDS.toNanos(1);

    @Test
    void nobodyWaitsAwakeUntilOneOccupantHasPassedTheGateToTheNext() {
        TurnPace pace = new TurnPace();
        assertThat(pace.awakeNanos(1)).isZero();
        pace.entered(1_000 * MICROS);
        assertThat(pace.awakeNanos(1)).as("one occupant, no tenure ended yet").isZero();
        pace.passed(1_010 * MICROS);
        assertThat(pace.awakeNanos(1)).isEqualTo(4 * 10 * MICROS);
    }

    @Test
    void anyClockReadingCountsAsAnEntryZeroAndNegativeOnesToo() {
        for (long start : new long[] {0, -5 * MICROS, Long.MAX_VALUE - 5 * MICROS}) {
            TurnPace pace = new TurnPace();
            pace.entered(start);
            pace.passed(start + 10 * MICROS);
            assertThat(pace.awakeNanos(1)).as("entered at %d", start).isEqualTo(40 * MICROS);
        }
    }

    @Test
    void aQueuedThreadWaitsAwakeFourTimesItsExpectedWaitAtMostTheMaximum() {
        TurnPace pace = occupantsOf(10 * MICROS);
        assertThat(pace.awakeNanos(3)).as("3 ahead × 10 µs, four times").isEqualTo(120 * MICROS);
        assertThat(pace.awakeNanos(7)).as("70 µs expected: capped").isEqualTo(TurnPace.MAX_AWAKE_NANOS);
        assertThat(pace.awakeNanos(20)).as("200 µs expected: still awake").isEqualTo(TurnPace.MAX_AWAKE_NANOS);
        assertThat(pace.awakeNanos(21)).as("210 µs expected: parks at once").isZero();
    }

    @Test
    void behindLongHoldsAThreadParksAtOnce() {
        TurnPace pace = occupantsOf(TimeUnit.MILLISECONDS.toNanos(5));
        assertThat(pace.awakeNanos(1)).isZero();
    }

    @Test
    void theTenureFollowsTheRecentOccupantsAndForgetsTheTimeTheGateWasFree() {
        TurnPace pace = occupantsOf(10 * MICROS);
        long now = 10_000 * MICROS;
        // The gate stays free for a second: that is nobody's tenure.
        pace.freed();
        now += TimeUnit.SECONDS.toNanos(1);
        pace.entered(now);
        pace.passed(now + 10 * MICROS);
        assertThat(pace.awakeNanos(1)).isEqualTo(40 * MICROS);
        // Holds grow to 1 ms: within a few dozen of them nobody waits awake any more.
        now += 10 * MICROS;
        for (int i = 0; i < 40; i++) {
            now += TimeUnit.MILLISECONDS.toNanos(1);
            pace.passed(now);
        }
        assertThat(pace.awakeNanos(1)).isZero();
    }

    /** A pace whose occupants have each held for {@code tenureNanos}. */
    private static TurnPace occupantsOf(long tenureNanos) {
        TurnPace pace = new TurnPace();
        long now = 1_000 * MICROS;
        pace.entered(now);
        for (int i = 0; i < 4; i++) {
            now += tenureNanos;
            pace.passed(now);
        }
        return pace;
    }
}
