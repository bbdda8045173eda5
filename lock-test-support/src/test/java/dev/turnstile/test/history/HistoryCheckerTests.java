package dev.turnstile.test.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistoryCheckerTests {

    private final HistoryChecker checker = HistoryChecker.withBounds(Duration.ofMillis(100), Duration.ofSeconds(1));

    @Test
    void holdsOneAfterAnotherWithRisingTokensAreClean() {
        HistoryChecker.Verdict verdict = this.checker.check(List.of(
                hold("p1", "a", 1, 10, 0, 1_000, 5_000, -1, -1), hold("p2", "a", 1, 11, 2_000, 5_000, 9_000, -1, -1)));
        assertThat(verdict.holds()).isEqualTo(2);
        assertThat(verdict.cells()).isEqualTo("2 | 0 | 0 | 0 | 0 | 0");
    }

    @Test
    void anOverlapWithoutAReportedLossIsNotExplained() {
        HistoryChecker.Verdict verdict = this.checker.check(List.of(
                hold("p1", "a", 1, 10, 0, 1_000, 8_000, -1, -1), hold("p2", "a", 1, 11, 2_000, 5_000, 9_000, -1, -1)));
        assertThat(verdict.overlaps()).isEqualTo(1);
        assertThat(verdict.unexplainedOverlaps()).isEqualTo(1);
    }

    @Test
    void anOverlapIsExplainedByTheEarlierHoldsReportedLossAndLowerToken() {
        HistoryChecker.Verdict verdict = this.checker.check(List.of(
                hold("p1", "a", 1, 10, 0, 1_000, 8_000, 4_900, 0),
                hold("p2", "a", 1, 11, 2_000, 5_000, 9_000, -1, -1)));
        assertThat(verdict.overlaps()).isEqualTo(1);
        assertThat(verdict.unexplainedOverlaps()).isZero();
        assertThat(verdict.lateLosses()).isZero();
    }

    @Test
    void anOverlapWhoseEarlierHoldHasTheHigherTokenIsNotExplainedAndIsAnInversion() {
        HistoryChecker.Verdict verdict = this.checker.check(List.of(
                hold("p1", "a", 1, 12, 0, 1_000, 8_000, 4_900, 0),
                hold("p2", "a", 1, 11, 2_000, 5_000, 9_000, -1, -1)));
        assertThat(verdict.unexplainedOverlaps()).isEqualTo(1);
        assertThat(verdict.tokenInversions()).isEqualTo(1);
    }

    @Test
    void aLossReportedLongAfterTheOverlappingGrantIsLateUnlessTheProcessWasPaused() {
        List<Hold> holds = List.of(
                hold("p1", "a", 1, 10, 0, 1_000, 900_000, 800_000, -1),
                hold("p2", "a", 1, 11, 2_000, 5_000, 9_000, -1, -1));
        assertThat(this.checker.check(holds).lateLosses()).isEqualTo(1);
        HistoryChecker paused = HistoryChecker.withBounds(Duration.ofMillis(100), Duration.ofSeconds(1))
                .paused("p1", 3_000, 790_000);
        assertThat(paused.check(holds).lateLosses()).isZero();
    }

    @Test
    void aLossReportedLongAfterTheDeadlineIsLate() {
        HistoryChecker.Verdict verdict =
                this.checker.check(List.of(hold("p1", "a", 1, 10, 0, 1_000, 900_000, 800_000, 500_000)));
        assertThat(verdict.lateLosses()).isEqualTo(1);
    }

    @Test
    void aGrantThatCameBackAfterItsDeadlineIsLateOnlyIfReportedWellAfterItCameBack() {
        // Asked at 0, Redis answered 900 ms later, after the lease's deadline (600 ms): reported lost
        // 50 ms after the grant came back is in time; 200 ms after is late (bound 100 ms).
        assertThat(this.checker
                        .check(List.of(hold("p1", "a", 1, 10, 0, 900_000, 950_000, 950_000, 350_000)))
                        .lateLosses())
                .isZero();
        assertThat(this.checker
                        .check(List.of(hold("p1", "a", 1, 10, 0, 900_000, 1_200_000, 1_100_000, 500_000)))
                        .lateLosses())
                .isEqualTo(1);
    }

    @Test
    void aTokenNotAboveOneGrantedBeforeTheAskIsAnInversionEvenWithoutOverlap() {
        HistoryChecker.Verdict verdict = this.checker.check(List.of(
                hold("p1", "a", 1, 10, 0, 1_000, 2_000, -1, -1), hold("p2", "a", 1, 10, 3_000, 4_000, 5_000, -1, -1)));
        assertThat(verdict.overlaps()).isZero();
        assertThat(verdict.tokenInversions()).isEqualTo(1);
    }

    @Test
    void concurrentAsksMayBeGrantedInEitherTokenOrder() {
        HistoryChecker.Verdict verdict = this.checker.check(List.of(
                hold("p1", "s", 2, 11, 0, 1_000, 9_000, -1, -1), hold("p2", "s", 2, 10, 500, 2_000, 9_000, -1, -1)));
        assertThat(verdict.tokenInversions()).isZero();
        assertThat(verdict.overlaps()).isZero();
    }

    @Test
    void aSemaphoreAboveItsLimitIsCaughtAndALostHoldExplainsIt() {
        List<Hold> over = List.of(
                hold("p1", "s", 2, 1, 0, 1_000, 9_000, -1, -1),
                hold("p2", "s", 2, 2, 0, 1_100, 9_000, -1, -1),
                hold("p3", "s", 2, 3, 0, 1_200, 9_000, -1, -1));
        assertThat(this.checker.check(over).unexplainedOverlaps()).isEqualTo(1);
        List<Hold> explained = List.of(
                hold("p1", "s", 2, 1, 0, 1_000, 9_000, 1_150, -1),
                hold("p2", "s", 2, 2, 0, 1_100, 9_000, -1, -1),
                hold("p3", "s", 2, 3, 0, 1_200, 9_000, -1, -1));
        HistoryChecker.Verdict verdict = this.checker.check(explained);
        assertThat(verdict.overlaps()).isEqualTo(1);
        assertThat(verdict.unexplainedOverlaps()).isZero();
    }

    @Test
    void anAcquisitionThatNeverReturnedOrTookFarLongerThanItsWaitIsAHangUnlessItsProcessWasKilled() {
        Hold pending = new Hold("p1", "t", "lock", "a", 1, -1, 1_000_000, 0, -1, -1, -1, -1, Hold.Outcome.PENDING);
        Hold slow = new Hold("p2", "t", "lock", "a", 1, -1, 1_000_000, 0, 5_000_000, -1, -1, -1, Hold.Outcome.REFUSED);
        assertThat(this.checker.check(List.of(pending, slow)).hangs()).isEqualTo(2);
        HistoryChecker killed = HistoryChecker.withBounds(Duration.ofMillis(100), Duration.ofSeconds(1))
                .killed("p1", 10);
        assertThat(killed.check(List.of(pending)).hangs()).isZero();
    }

    @Test
    void aKilledProcessesHoldEndsAtItsDeath() {
        List<Hold> holds = List.of(
                hold("p1", "a", 1, 10, 0, 1_000, -1, -1, -1), hold("p2", "a", 1, 11, 2_000, 5_000, 9_000, -1, -1));
        assertThat(this.checker.check(holds).unexplainedOverlaps()).isEqualTo(1);
        HistoryChecker killed = HistoryChecker.withBounds(Duration.ofMillis(100), Duration.ofSeconds(1))
                .killed("p1", 3_000);
        HistoryChecker.Verdict verdict = killed.check(holds);
        assertThat(verdict.overlaps()).isZero();
        assertThat(verdict.hangs()).isZero();
    }

    @Test
    void aChildsHistoryFileGivesEachHoldInItsLastStateAndIgnoresALineCutShort(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("child.tsv");
        History history = History.appendingTo(file);
        History.Recording first = history.begin("child", "lock", "a", 1, Duration.ofSeconds(1));
        first.granted(7);
        first.lost(Duration.ofMillis(3));
        assertThat(first.release(() -> false)).isFalse();
        History.Recording second = history.begin("child", "lock", "a", 1, Duration.ofSeconds(1));
        second.granted(8);
        Files.writeString(file, "3\tchild\tmain\tlo", java.nio.file.StandardOpenOption.APPEND);

        List<Hold> read = History.read(file);

        assertThat(read).hasSize(2);
        assertThat(read.get(0).token()).isEqualTo(7);
        assertThat(read.get(0).lossOverdueMicros()).isEqualTo(3_000);
        assertThat(read.get(0).ended()).isPositive();
        assertThat(read.get(1).granted()).isTrue();
        assertThat(read.get(1).ended()).isEqualTo(-1);
    }

    private static Hold hold(
            String process,
            String name,
            int limit,
            long token,
            long requested,
            long granted,
            long ended,
            long lossReported,
            long overdue) {
        return new Hold(
                process,
                "t",
                limit == 1 ? "lock" : "semaphore",
                name,
                limit,
                token,
                1_000_000,
                requested,
                granted,
                ended,
                lossReported,
                overdue,
                Hold.Outcome.GRANTED);
    }
}
