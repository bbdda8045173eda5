package dev.turnstile.test.history;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Judges a history of holds. For every name:
 *
 * <ul>
 *   <li>no two holds of a lock overlap, unless the one with the lower token (the earlier grant, as
 *       fencing storage sees it) had its loss reported, by a listener or by its release answering
 *       false: an <em>explained</em> overlap, the most a lease-based lock can promise a holder
 *       that stalls;
 *   <li>a semaphore of limit N never has more than N holds at once whose loss was not reported;
 *   <li>tokens increase with real time: a hold asked for after another was granted has the larger
 *       token (an <em>inversion</em> otherwise);
 *   <li>a loss is reported within {@code lossBound} after the lease's deadline (or after the grant
 *       came back, when Redis's reply came after that deadline), and a hold that
 *       another overlaps is reported lost within {@code lossBound} after the other's grant, unless
 *       its process was paused by the test then (a paused process reports when it wakes);
 *   <li>nothing hangs: every acquisition returns within its wait plus {@code hangBound}, and every
 *       hold ends, unless its process was killed.
 * </ul>
 *
 * <p>Times are {@link HistoryClock} microseconds. Not thread-safe: configure, then {@link #check}.
 */
public final class HistoryChecker {

    private final long lossBoundMicros;
    private final long hangBoundMicros;
    private final Map<String, List<long[]>> pauses = new HashMap<>();
    private final Map<String, Long> deaths = new HashMap<>();

    private HistoryChecker(Duration lossBound, Duration hangBound) {
        this.lossBoundMicros = lossBound.toNanos() / 1_000;
        this.hangBoundMicros = hangBound.toNanos() / 1_000;
    }

    /**
     * A checker with the bounds a run states.
     *
     * @param lossBound how late after a lease's deadline (or after an overlapping grant) its loss
     *     may be reported
     * @param hangBound how much longer than its wait an acquisition may take to return
     */
    public static HistoryChecker withBounds(Duration lossBound, Duration hangBound) {
        return new HistoryChecker(lossBound, hangBound);
    }

    /** Records that the test paused {@code process} (SIGSTOP) from {@code fromMicros} to {@code toMicros}. */
    public HistoryChecker paused(String process, long fromMicros, long toMicros) {
        this.pauses.computeIfAbsent(process, p -> new ArrayList<>()).add(new long[] {fromMicros, toMicros});
        return this;
    }

    /** Records that the test killed {@code process} at {@code micros}: its holds end there. */
    public HistoryChecker killed(String process, long micros) {
        this.deaths.put(process, micros);
        return this;
    }

    /** Judges {@code holds} (every acquisition of the run, of every process). */
    public Verdict check(List<Hold> holds) {
        Verdict verdict = new Verdict();
        Map<String, List<Hold>> byName = new LinkedHashMap<>();
        for (Hold hold : holds) {
            checkReturn(hold, verdict);
            if (hold.granted()) {
                verdict.holds++;
                byName.computeIfAbsent(hold.name(), n -> new ArrayList<>()).add(hold);
                checkLossReport(hold, verdict);
            }
        }
        for (List<Hold> ofName : byName.values()) {
            ofName.sort(Comparator.comparingLong(Hold::returned));
            if (ofName.get(0).limit() == 1) {
                checkExclusion(ofName, verdict);
            } else {
                checkLimit(ofName, verdict);
            }
            checkTokens(ofName, verdict);
        }
        return verdict;
    }

    private void checkReturn(Hold hold, Verdict verdict) {
        Long death = this.deaths.get(hold.process());
        if (hold.outcome() == Hold.Outcome.PENDING || (hold.granted() && hold.ended() < 0)) {
            if (death == null) {
                verdict.hangs++;
                verdict.note("never " + (hold.granted() ? "ended" : "returned") + ": " + hold);
            }
            return;
        }
        long took = hold.returned() - hold.requested();
        if (took > hold.waitMicros() + this.hangBoundMicros
                && !pausedDuring(hold.process(), hold.requested(), hold.returned())) {
            verdict.hangs++;
            verdict.note("returned " + took / 1000 + " ms after it was asked for, wait " + hold.waitMicros() / 1000
                    + " ms: " + hold);
        }
    }

    private void checkLossReport(Hold hold, Verdict verdict) {
        // A grant whose reply came back after its lease's deadline (Redis answered late) can only be
        // reported lost once it is back: the bound counts from the later of the two.
        long deadline = hold.lossReported() - hold.lossOverdueMicros();
        long knowable = Math.max(deadline, hold.returned());
        if (hold.lossReported() - knowable > this.lossBoundMicros) {
            if (!pausedDuring(hold.process(), deadline, hold.lossReported())) {
                verdict.lateLosses++;
                verdict.note("loss reported " + hold.lossOverdueMicros() / 1000 + " ms after the deadline: " + hold);
            }
        }
    }

    /**
     * Two holds of a lock that overlap are explained when the one with the lower token (the earlier
     * grant in Redis, as fencing storage sees it: a token that contradicts real time is an inversion
     * of its own) had its loss reported, in time.
     */
    private void checkExclusion(List<Hold> holds, Verdict verdict) {
        for (int i = 0; i < holds.size(); i++) {
            Hold first = holds.get(i);
            long end = end(first);
            for (int j = i + 1; j < holds.size() && holds.get(j).returned() < end; j++) {
                Hold second = holds.get(j);
                verdict.overlaps++;
                Hold lower = first.token() < second.token() ? first : second;
                Hold higher = lower == first ? second : first;
                if (first.token() == second.token() || !lower.lossWasReported()) {
                    verdict.unexplainedOverlaps++;
                    verdict.note("overlap not explained: " + first + " and " + second);
                } else if (lower.lossReported() > Math.max(higher.returned(), lower.returned()) + this.lossBoundMicros
                        && !pausedDuring(lower.process(), higher.returned(), lower.lossReported())) {
                    verdict.lateLosses++;
                    verdict.note("overlapped hold reported lost "
                            + (lower.lossReported() - Math.max(higher.returned(), lower.returned())) / 1000
                            + " ms after the overlap began: " + lower + " and " + higher);
                }
            }
        }
    }

    private void checkLimit(List<Hold> holds, Verdict verdict) {
        int limit = holds.get(0).limit();
        List<Hold> active = new ArrayList<>();
        for (Hold hold : holds) {
            long at = hold.returned();
            active.removeIf(a -> end(a) <= at);
            active.add(hold);
            if (active.size() > limit) {
                verdict.overlaps++;
                long unreported =
                        active.stream().filter(a -> !a.lossWasReported()).count();
                if (unreported > limit) {
                    verdict.unexplainedOverlaps++;
                    verdict.note(unreported + " holds of limit " + limit + " at once, none reported lost, at " + hold);
                }
            }
        }
    }

    /** A hold asked for after another was granted must have the larger token. */
    private void checkTokens(List<Hold> byGrant, Verdict verdict) {
        List<Hold> byRequest = new ArrayList<>(byGrant);
        byRequest.sort(Comparator.comparingLong(Hold::requested));
        int granted = 0;
        Hold highest = null;
        for (Hold hold : byRequest) {
            while (granted < byGrant.size() && byGrant.get(granted).returned() < hold.requested()) {
                Hold before = byGrant.get(granted++);
                if (highest == null || before.token() > highest.token()) {
                    highest = before;
                }
            }
            if (highest != null && hold.token() <= highest.token()) {
                verdict.tokenInversions++;
                verdict.note("token inversion: " + hold + " asked for after " + highest + " was granted");
            }
        }
    }

    private long end(Hold hold) {
        if (hold.ended() >= 0) {
            return hold.ended();
        }
        Long death = this.deaths.get(hold.process());
        return death != null ? death : Long.MAX_VALUE;
    }

    private boolean pausedDuring(String process, long from, long to) {
        for (long[] pause : this.pauses.getOrDefault(process, List.of())) {
            if (pause[0] <= to && from <= pause[1]) {
                return true;
            }
        }
        return false;
    }

    /** What a history showed: counts, and the first findings in words. */
    public static final class Verdict {

        private static final int MAX_NOTES = 20;

        int holds;
        int overlaps;
        int unexplainedOverlaps;
        int tokenInversions;
        int lateLosses;
        int hangs;
        private final List<String> notes = new ArrayList<>();

        void note(String note) {
            if (this.notes.size() < MAX_NOTES) {
                this.notes.add(note);
            }
        }

        /** Returns the number of holds (granted acquisitions). */
        public int holds() {
            return this.holds;
        }

        /** Returns the overlaps of lock holds, or the grants that put a semaphore above its limit. */
        public int overlaps() {
            return this.overlaps;
        }

        /** Returns the overlaps (or grants above the limit) that no reported loss explains. */
        public int unexplainedOverlaps() {
            return this.unexplainedOverlaps;
        }

        /** Returns the holds whose token is not above that of every hold granted before they were asked for. */
        public int tokenInversions() {
            return this.tokenInversions;
        }

        /** Returns the losses reported later than the bound. */
        public int lateLosses() {
            return this.lateLosses;
        }

        /** Returns the acquisitions that did not return in time and the holds that never ended. */
        public int hangs() {
            return this.hangs;
        }

        /** Returns the first findings, in words. */
        public List<String> notes() {
            return List.copyOf(this.notes);
        }

        /** Returns the counts as one markdown table row's cells: holds, overlaps, not explained, inversions, late, hangs. */
        public String cells() {
            return String.format(
                    "%,d | %,d | %,d | %,d | %,d | %,d",
                    this.holds,
                    this.overlaps,
                    this.unexplainedOverlaps,
                    this.tokenInversions,
                    this.lateLosses,
                    this.hangs);
        }

        @Override
        public String toString() {
            return this.holds + " holds, " + this.overlaps + " overlaps (" + this.unexplainedOverlaps
                    + " not explained), " + this.tokenInversions + " token inversions, " + this.lateLosses
                    + " losses reported late, " + this.hangs + " hangs"
                    + (this.notes.isEmpty() ? "" : "; first findings:\n  " + String.join("\n  ", this.notes));
        }
    }
}
