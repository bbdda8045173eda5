package dev.turnstile.test.history;

import java.time.Instant;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The time base of histories: microseconds since the epoch, read from this JVM's monotonic clock
 * anchored once to the wall clock. Every JVM on one machine anchors to the same wall clock, so the
 * times recorded by a test's child JVMs and by the test itself can be compared, and a wall-clock
 * step during a run does not bend them.
 *
 * <p>The anchor is the wall clock read between two readings of the monotonic clock, taken again
 * until the two readings are at most {@value #TIGHT_NANOS} ns apart (at most {@value #ATTEMPTS}
 * times, keeping the tightest): a thread preempted between the two clocks would otherwise anchor its
 * JVM milliseconds off the others (8.5 ms, seen on one of 40 JVMs started on a busy 2-core machine),
 * and a history checker comparing holds across processes would see overlaps and token inversions
 * that never happened. {@link #anchorError()} says how far off the anchor may be.
 */
public final class HistoryClock {

    static final long TIGHT_NANOS = 20_000;
    static final int ATTEMPTS = 10_000;

    private static final Anchor ANCHOR = Anchor.take(System::nanoTime, Instant::now);

    private HistoryClock() {}

    /** Returns the current time in microseconds since the epoch, never going back within one JVM. */
    public static long nowMicros() {
        return ANCHOR.micros(System.nanoTime());
    }

    /** Returns how far this JVM's anchor may be from the wall clock, at most: half its bracket, µs. */
    public static long anchorError() {
        return ANCHOR.errorMicros();
    }

    /** Returns this JVM's anchor. */
    static Anchor anchor() {
        return ANCHOR;
    }

    /**
     * One anchor: the wall clock's {@code micros} read when the monotonic clock was {@code nanos},
     * to within {@code errorMicros}.
     */
    record Anchor(long nanos, long micros, long errorMicros) {

        /** Reads the wall clock between two readings of {@code monotonic} until they are close. */
        static Anchor take(LongSupplier monotonic, Supplier<Instant> wall) {
            Anchor best = null;
            for (int i = 0; i < ATTEMPTS; i++) {
                long before = monotonic.getAsLong();
                Instant now = wall.get();
                long after = monotonic.getAsLong();
                long bracket = after - before;
                if (best == null || bracket / 2 / 1_000 < best.errorMicros) {
                    best = new Anchor(
                            before + bracket / 2,
                            now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000,
                            (bracket / 2 + 999) / 1_000);
                }
                if (bracket <= TIGHT_NANOS) {
                    break;
                }
            }
            return best;
        }

        long micros(long monotonicNanos) {
            return this.micros + (monotonicNanos - this.nanos) / 1_000;
        }

        /** The wall clock minus the monotonic clock, µs: the same in every JVM of a machine, to within the errors. */
        long wallMinusMonotonic() {
            return this.micros - this.nanos / 1_000;
        }
    }
}
