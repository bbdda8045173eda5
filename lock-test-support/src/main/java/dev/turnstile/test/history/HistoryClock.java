package dev.turnstile.test.history;

import java.time.Instant;

/**
 * The time base of histories: microseconds since the epoch, read from this JVM's monotonic clock
 * anchored once to the wall clock. Every JVM on one machine anchors to the same wall clock, so the
 * times recorded by a test's child JVMs and by the test itself can be compared (to within the
 * anchoring error, a few microseconds), and a wall-clock step during a run does not bend them.
 */
public final class HistoryClock {

    private static final long ANCHOR_NANOS;
    private static final long ANCHOR_MICROS;

    static {
        Instant now = Instant.now();
        ANCHOR_NANOS = System.nanoTime();
        ANCHOR_MICROS = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    private HistoryClock() {}

    /** Returns the current time in microseconds since the epoch, never going back within one JVM. */
    public static long nowMicros() {
        return ANCHOR_MICROS + (System.nanoTime() - ANCHOR_NANOS) / 1_000;
    }
}
