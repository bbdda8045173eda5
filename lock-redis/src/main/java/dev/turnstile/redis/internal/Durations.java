package dev.turnstile.redis.internal;

import java.time.Duration;

/** Formats durations the way people write them in configuration: {@code 500ms}, {@code 5s}, {@code 1m30s}. */
public final class Durations {

    private Durations() {}

    /** Formats {@code duration} compactly, e.g. {@code 1500ms} becomes {@code "1.5s"}. */
    public static String format(Duration duration) {
        long millis = duration.toMillis();
        if (millis < 1000) {
            return millis + "ms";
        }
        if (millis < 60_000) {
            return millis % 1000 == 0 ? (millis / 1000) + "s" : String.format("%.1fs", millis / 1000.0);
        }
        long seconds = millis / 1000;
        return (seconds / 60) + "m" + (seconds % 60 == 0 ? "" : (seconds % 60) + "s");
    }

    /** Returns {@code duration} in whole milliseconds, rounded up. */
    static long ceilMillis(Duration duration) {
        return (duration.toNanos() + 999_999) / 1_000_000;
    }
}
