package dev.turnstile.redis.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.test.history.HistoryChecker;
import dev.turnstile.test.redis.RedisServerExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every primitive under every fault the README names, judged by one history checker: no overlap
 * that a reported loss does not explain, tokens that increase with real time, never more than N
 * permits, losses reported in time, nothing hangs. The short schedule runs in {@code ./mvnw
 * verify}; the long one ({@code -Dhistory.schedule=long}) is what the guarantees page's table
 * shows: written to {@code target/history/table-long.md}, and with {@code
 * -Dhistory.docs=../docs/history} to {@code docs/history/table-long.md} under a header naming the command.
 */
class HistoryIntegrationTests {

    private static final boolean LONG = "long".equals(System.getProperty("history.schedule"));
    private static final Duration CELL = LONG ? Duration.ofSeconds(15) : Duration.ofSeconds(1);
    private static final Duration FAILOVER_CELL = LONG ? Duration.ofSeconds(20) : Duration.ofSeconds(6);

    /** Cells whose non-zero counts come from a condition the README states, with that condition. */
    private static final Map<Fault, String> CONDITIONS = Map.of(
            Fault.FAILOVER,
            "without minReplicas, grants and counter increments the replica never received are lost with the old"
                    + " master: a second owner, and tokens below those handed out unless the new master's clock is"
                    + " past them");

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final HistoryRun runs = new HistoryRun(redis);
    private static final List<String> rows = new ArrayList<>();

    /** {@code -Dhistory.only=LOCK,FORCE_RELEASE} runs only the cells that name both (or either, if one is given). */
    private static final List<String> ONLY =
            List.of(System.getProperty("history.only", "").split(","));

    static Stream<Arguments> cells() {
        List<Arguments> cells = new ArrayList<>();
        for (Primitive primitive : Primitive.values()) {
            for (Fault fault : Fault.values()) {
                if (applies(primitive, fault)
                        && selected(primitive, fault)
                        && (LONG || inShortSchedule(primitive, fault))) {
                    cells.add(Arguments.of(primitive, fault));
                }
            }
        }
        return cells.stream();
    }

    private static boolean selected(Primitive primitive, Fault fault) {
        List<String> names = ONLY.stream().filter(n -> !n.isBlank()).toList();
        boolean primitiveNamed = names.stream().anyMatch(n -> n.equals(primitive.name()));
        boolean faultNamed = names.stream().anyMatch(n -> n.equals(fault.name()));
        boolean anyPrimitive = names.stream()
                .anyMatch(n -> java.util.Arrays.stream(Primitive.values())
                        .anyMatch(p -> p.name().equals(n)));
        boolean anyFault = names.stream()
                .anyMatch(n -> java.util.Arrays.stream(Fault.values())
                        .anyMatch(f -> f.name().equals(n)));
        return (!anyPrimitive || primitiveNamed) && (!anyFault || faultNamed);
    }

    /**
     * The short schedule, for every build: each primitive under every fault on the Redis side, and
     * the faults that need child JVMs or a Sentinel group (seconds each) on a few primitives.
     */
    private static boolean inShortSchedule(Primitive primitive, Fault fault) {
        if (fault.needsChildJvms()) {
            // The semaphore too: its permits pass between the threads of each process.
            return primitive == Primitive.LOCK || primitive == Primitive.REDLOCK || primitive == Primitive.SEMAPHORE;
        }
        if (fault.needsSentinel()) {
            return primitive == Primitive.LOCK;
        }
        return true;
    }

    private static boolean applies(Primitive primitive, Fault fault) {
        if (primitive == Primitive.REDLOCK && fault.needsSentinel()) {
            return false; // Redlock runs on independent masters, not on a replicated one
        }
        if (primitive != Primitive.REDLOCK && fault.shiftsMasterClocks()) {
            return false; // the clocks of several masters
        }
        if (primitive.isSemaphore() && fault == Fault.FORCE_RELEASE) {
            return false; // a semaphore has no force-release
        }
        return true;
    }

    @ParameterizedTest(name = "{0} under {1}")
    @MethodSource("cells")
    void everyHoldIsExplained(Primitive primitive, Fault fault) throws Exception {
        if (fault.shiftsClocks()) {
            org.junit.jupiter.api.Assumptions.assumeTrue(
                    dev.turnstile.test.redis.ClockShift.isAvailable(),
                    "Skipped: shifting a server's clock needs gcc to build its library (.ci/run installs it)");
        }
        HistoryRun.Result result = runs.run(primitive, fault, fault.needsSentinel() ? FAILOVER_CELL : CELL);
        HistoryChecker.Verdict verdict = result.verdict();
        String condition = CONDITIONS.get(fault);
        synchronized (rows) {
            rows.add("| " + primitive.label + " | " + fault.label + " | " + result.faults() + " | " + verdict.cells()
                    + " | "
                    + (condition != null && verdict.unexplainedOverlaps() + verdict.tokenInversions() > 0
                            ? condition
                            : "")
                    + " |");
        }
        System.out.println(primitive.label + " under " + fault.label + " (" + result.faults() + " faults): " + verdict);
        keepIfFound(result);
        assertThat(verdict.holds()).as("the workload made progress").isPositive();
        if (fault != Fault.NONE) {
            assertThat(result.faults()).as("the nemesis applied its fault").isPositive();
        }
        assertThat(verdict.hangs()).as("nothing hangs: %s", verdict).isZero();
        assertThat(verdict.lateLosses())
                .as("losses reported in time: %s", verdict)
                .isZero();
        if (condition != null) {
            // Without minReplicas the failover may lose grants, but a lost grant lets a second owner
            // in only while its holder is still within its lease when the new master grants. Here
            // the failover (Sentinel's 1 s down-after, after 300 ms of cut replication) outlasts a
            // lease plus the loss bound: every hold on the old master was over, or reported lost,
            // before the new master granted, and its clock is past their tokens. So none may
            // overlap unexplained or invert, as the docs say of this row.
            assertThat(result.failoverMillis())
                    .as("the failover, from the cut of replication to the promotion, ms")
                    .isGreaterThan(HistoryRun.LEASE.plus(HistoryRun.LOSS_BOUND).toMillis());
        }
        assertThat(verdict.unexplainedOverlaps())
                .as("overlaps explained: %s", verdict)
                .isZero();
        assertThat(verdict.tokenInversions()).as("tokens increase: %s", verdict).isZero();
    }

    /**
     * Keeps the history of a cell with any finding in {@code target/history/PRIMITIVE-FAULT.tsv},
     * as {@link dev.turnstile.test.history.History#read} reads it back (the kills and pauses the
     * checker was told of are in the cell's output, not in the file); a cell without a finding
     * removes the file an earlier run left.
     */
    private static void keepIfFound(HistoryRun.Result result) throws IOException {
        HistoryChecker.Verdict verdict = result.verdict();
        Path dir = Path.of("target", "history");
        Path file = dir.resolve(result.primitive() + "-" + result.fault() + ".tsv");
        if (verdict.unexplainedOverlaps() + verdict.tokenInversions() + verdict.lateLosses() + verdict.hangs() == 0) {
            Files.deleteIfExists(file);
            return;
        }
        Files.createDirectories(dir);
        List<dev.turnstile.test.history.Hold> holds = result.holds();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < holds.size(); i++) {
            lines.add((i + 1) + "\t" + holds.get(i).line());
        }
        Files.write(file, lines);
        System.out.println("The history of that cell: " + file.toAbsolutePath());
    }

    @AfterAll
    static void writeTable() throws IOException {
        Path dir = Path.of("target", "history");
        Files.createDirectories(dir);
        List<String> table = new ArrayList<>();
        table.add("| primitive | fault | faults applied | holds | overlaps | not explained | token inversions"
                + " | losses reported late | hangs | condition |");
        table.add("|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
        table.addAll(rows);
        Files.write(dir.resolve(LONG ? "table-long.md" : "table.md"), table);
        // -Dhistory.docs=../docs/history: the long schedule's table for the guarantees page, under the
        // header that names the command (the documentation's figures are checked against it).
        String docs = System.getProperty("history.docs");
        if (docs != null && LONG) {
            Path page = Path.of(docs);
            Files.createDirectories(page);
            List<String> written = new ArrayList<>();
            written.add("Written by `./mvnw -q -DskipTests install && ./mvnw verify -pl lock-redis"
                    + " -Dtest=HistoryIntegrationTests -Dhistory.schedule=long -Dhistory.docs=../docs/history"
                    + (ONLY.stream().allMatch(String::isBlank) ? "" : " -Dhistory.only=" + String.join(",", ONLY))
                    + "` on " + java.time.LocalDate.now() + "; rerun it to refresh, never edit by hand.");
            written.add("");
            written.addAll(table);
            Files.write(
                    page.resolve(ONLY.stream().allMatch(String::isBlank) ? "table-long.md" : "table-long-only.md"),
                    written);
        }
    }
}
