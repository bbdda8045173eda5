package dev.turnstile.redis.internal;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** Checks of caller input; each failure names the argument and quotes the value. */
public final class Arguments {

    /** The longest lease or wait accepted: long enough for any real holder, far from overflow. */
    public static final Duration MAX_DURATION = Duration.ofDays(365);

    private Arguments() {}

    /**
     * Returns {@code name} if it has a non-blank character and does not start with {@code '}'}
     * (which would make the key's hash tag empty, splitting one lock's keys over cluster slots).
     */
    public static String requireName(@Nullable String name, String what) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException(
                    "'" + what + "' must not be null or blank but was " + (name == null ? "null" : "'" + name + "'"));
        }
        if (name.startsWith("}")) {
            throw new IllegalArgumentException("'" + what + "' must not start with '}' but was '" + name + "'");
        }
        return name;
    }

    /** Returns {@code duration} if it is greater than zero. */
    public static Duration requirePositive(@Nullable Duration duration, String what) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("'" + what + "' must be positive but was " + duration);
        }
        if (duration.toMillis() < 1) {
            throw new IllegalArgumentException("'" + what + "' must be at least 1ms but was " + duration);
        }
        return requireAtMostMax(duration, what);
    }

    /**
     * Returns {@code lease} as Redis keeps it: checked like {@link #requirePositive} and cut to whole
     * milliseconds (PX and PEXPIRE take milliseconds), so that no local deadline counts the part of
     * a millisecond Redis never had.
     */
    public static Duration requireLease(@Nullable Duration lease, String what) {
        return requirePositive(lease, what).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    }

    /** Returns {@code duration} if it is zero or greater. */
    public static Duration requireNonNegative(@Nullable Duration duration, String what) {
        if (duration == null || duration.isNegative()) {
            throw new IllegalArgumentException("'" + what + "' must be zero or positive but was " + duration);
        }
        return requireAtMostMax(duration, what);
    }

    private static Duration requireAtMostMax(Duration duration, String what) {
        if (duration.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException(
                    "'" + what + "' must be at most " + MAX_DURATION.toDays() + " days but was " + duration);
        }
        return duration;
    }
}
