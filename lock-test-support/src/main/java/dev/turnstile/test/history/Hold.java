package dev.turnstile.test.history;

import java.util.Locale;

/**
 * One acquisition in a history: asked for, then either granted (a hold, with its fencing token, its
 * end and how its loss was reported) or refused. Times are {@link HistoryClock} microseconds; a
 * time that did not happen is -1.
 *
 * @param process the process (a JVM, or one client instance standing for one) that asked
 * @param thread the thread that asked
 * @param primitive what was asked for, e.g. {@code lock}, {@code semaphore}, {@code redlock}
 * @param name the lock or semaphore name
 * @param limit how many holds of the name may overlap: 1 for a lock, N for a semaphore
 * @param token the hold's fencing token; -1 if refused
 * @param waitMicros the wait the caller gave the acquisition
 * @param requested when the acquisition was asked for
 * @param returned when the acquisition returned (granted or refused); -1 if it never did
 * @param ended when the holder ended the hold (called release); -1 if refused or never ended
 * @param lossReported when the hold's loss was first reported to the holder (a listener, or a
 *     release that said the hold was not kept); -1 if never
 * @param lossOverdueMicros how long after the lease's own deadline the loss was reported, as the
 *     lease's event says; -1 if unknown (reported by a release) or not lost
 * @param outcome what the acquisition gave
 */
public record Hold(
        String process,
        String thread,
        String primitive,
        String name,
        int limit,
        long token,
        long waitMicros,
        long requested,
        long returned,
        long ended,
        long lossReported,
        long lossOverdueMicros,
        Outcome outcome) {

    /** What an acquisition gave. */
    public enum Outcome {
        /** Granted: a hold. */
        GRANTED,
        /** Not granted within the wait. */
        REFUSED,
        /** Failed with an error (Redis unreachable, interrupted). */
        FAILED,
        /** Never returned before the history was read: a hang, unless the process was killed. */
        PENDING
    }

    /** Returns whether this acquisition gave a hold. */
    public boolean granted() {
        return this.outcome == Outcome.GRANTED;
    }

    /** Returns whether the hold's loss was reported. */
    public boolean lossWasReported() {
        return this.lossReported >= 0;
    }

    /** Returns whether the hold covers the moment {@code micros} (granted, not yet ended). */
    boolean covers(long micros) {
        return granted() && this.returned <= micros && (this.ended < 0 || micros < this.ended);
    }

    /** Returns the hold as one tab-separated line (see {@link #parse}). */
    public String line() {
        return String.join(
                "\t",
                this.process,
                this.thread,
                this.primitive,
                this.name,
                Integer.toString(this.limit),
                Long.toString(this.token),
                Long.toString(this.waitMicros),
                Long.toString(this.requested),
                Long.toString(this.returned),
                Long.toString(this.ended),
                Long.toString(this.lossReported),
                Long.toString(this.lossOverdueMicros),
                this.outcome.name());
    }

    /** Parses a line written by {@link #line()}. */
    public static Hold parse(String line) {
        String[] f = line.split("\t", -1);
        if (f.length != 13) {
            throw new IllegalArgumentException("Not a hold line (13 tab-separated fields): '" + line + "'");
        }
        return new Hold(
                f[0],
                f[1],
                f[2],
                f[3],
                Integer.parseInt(f[4]),
                Long.parseLong(f[5]),
                Long.parseLong(f[6]),
                Long.parseLong(f[7]),
                Long.parseLong(f[8]),
                Long.parseLong(f[9]),
                Long.parseLong(f[10]),
                Long.parseLong(f[11]),
                Outcome.valueOf(f[12].toUpperCase(Locale.ROOT)));
    }

    @Override
    public String toString() {
        return this.primitive + " '" + this.name + "' " + this.outcome + " to " + this.process + "/" + this.thread
                + (granted() ? " token " + this.token + " [" + this.returned + ", " + this.ended + "]" : "")
                + (lossWasReported() ? " loss reported at " + this.lossReported : "");
    }
}
