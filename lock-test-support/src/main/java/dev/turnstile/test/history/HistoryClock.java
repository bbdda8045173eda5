package dev.turnstile.test.history;

import java.time.Instant;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The time base of histories: microseconds since the epoch, read from the monotonic clock ({@link
 * System#nanoTime()}) anchored once to the wall clock, so that a wall-clock step during a run does
 * not bend them.
 *
 * <p>Times recorded by a test and by the child JVMs it starts are compared by a history checker, so
 * they share one anchor: {@link dev.turnstile.test.redis.ChildJvm} hands this JVM's anchor to every
 * child ({@value #ANCHOR_PROPERTY}), and the monotonic clock is the machine's, the same in every
 * process (Linux's {@code CLOCK_MONOTONIC}). A JVM started otherwise takes its own anchor: the wall
 * clock read between two readings of the monotonic clock, taken again until they are at most
 * {@value #TIGHT_NANOS} ns apart (at most {@value #ATTEMPTS} times, keeping the tightest). Reading
 * the two clocks one after the other, as this class once did, anchored a JVM milliseconds off when
 * its thread was preempted between them (8.5 ms, seen on one of 40 JVMs started on a busy 2-core
 * machine), and the checker saw overlaps and token inversions between processes that never happened.
 */
public final class HistoryClock {

    /** The system property that gives a child JVM its parent's anchor: {@code nanos:micros:error}. */
    public static final String ANCHOR_PROPERTY = "turnstile.history.anchor";

    static final long TIGHT_NANOS = 2_000;
    static final int ATTEMPTS = 10_000;

    private static final Anchor ANCHOR = System.getProperty(ANCHOR_PROPERTY) != null
            ? Anchor.parse(System.getProperty(ANCHOR_PROPERTY))
            : Anchor.take(System::nanoTime, Instant::now);

    private HistoryClock() {}

    /** Returns the current time in microseconds since the epoch, never going back within one JVM. */
    public static long nowMicros() {
        return ANCHOR.micros(System.nanoTime());
    }

    /** Returns the JVM option that gives a child JVM this JVM's anchor. */
    public static String childOption() {
        return "-D" + ANCHOR_PROPERTY + "=" + ANCHOR.nanos() + ":" + ANCHOR.micros() + ":" + ANCHOR.errorMicros();
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

        /**
         * Reads the wall clock between two readings of {@code monotonic} until they are close; the
         * anchor is their midpoint, off by at most half of their distance plus the wall clock's
         * truncation to µs.
         */
        static Anchor take(LongSupplier monotonic, Supplier<Instant> wall) {
            long bestBracket = Long.MAX_VALUE;
            Anchor best = null;
            for (int i = 0; i < ATTEMPTS && bestBracket > TIGHT_NANOS; i++) {
                long before = monotonic.getAsLong();
                Instant now = wall.get();
                long after = monotonic.getAsLong();
                long bracket = after - before;
                if (bracket < bestBracket) {
                    bestBracket = bracket;
                    best = new Anchor(
                            before + bracket / 2,
                            now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000,
                            (bracket / 2 + 999) / 1_000 + 1);
                }
            }
            return best;
        }

        static Anchor parse(String value) {
            String[] parts = value.split(":");
            if (parts.length != 3) {
                throw new IllegalArgumentException(ANCHOR_PROPERTY
                        + " must be nanos:micros:error, as HistoryClock.childOption() writes it, not '" + value + "'");
            }
            return new Anchor(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]));
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
