package dev.turnstile.spring.history;

import static org.awaitility.Awaitility.await;

import dev.turnstile.spring.BootLine;
import dev.turnstile.test.history.History;
import dev.turnstile.test.history.HistoryChecker;
import dev.turnstile.test.history.HistoryClock;
import dev.turnstile.test.history.Hold;
import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.RedisServerExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A {@code holdAtLeast} job ({@link ReportJob}: {@code @Scheduled} every second, {@code
 * holdAtLeast = "700ms"}, {@code onFailure = SKIP}) on three nodes under faults: at most one run
 * per period, and the runs, as holds, judged by the history checker. Redis pauses hit three
 * application contexts in this JVM (pauses shorter than a lease are left to the other history
 * runs: a 150 ms pause only delays a one-second job); for a node stopped (SIGSTOP) or killed (kill
 * -9) in the middle of its run, the nodes are two child JVMs. {@code -Dhistory.schedule=long} runs the Redis cell
 * for 20 s instead of 4 s.
 */
class ScheduledJobHistoryIntegrationTests {

    private static final boolean LONG = "long".equals(System.getProperty("history.schedule"));
    private static final Duration CELL = LONG ? Duration.ofSeconds(20) : Duration.ofSeconds(4);
    private static final Duration PERIOD = Duration.ofSeconds(1);
    private static final Duration LEASE = Duration.ofMillis(600);
    /**
     * Shorter than the long Redis pause, as in the core's history runs: a call caught by it fails.
     * (A longer timeout returns grants after their lease's local deadline, reported lost at once.)
     */
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final Duration LOSS_BOUND = LEASE.dividedBy(3).plusMillis(200);
    private static final Duration HANG_BOUND = TIMEOUT.multipliedBy(4);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private ApplicationContextRunner node(String name, History history) {
        return new ApplicationContextRunner()
                .withConfiguration(BootLine.turnstile())
                .withUserConfiguration(ReportJob.Config.class)
                .withBean(History.class, () -> history)
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port(),
                        "spring.data.redis.timeout=" + TIMEOUT.toMillis() + "ms",
                        "turnstile.default-lease=" + LEASE.toMillis() + "ms",
                        "node=" + name);
    }

    @ParameterizedTest(name = "under {0}")
    @EnumSource(names = "REDIS_PAUSED_LONG")
    void oneRunPerPeriodWhileRedisPauses(SpringFault fault) {
        History history = History.inMemory();
        Nemesis nemesis = new Nemesis();
        node("node-1", history).run(a -> node("node-2", history).run(b -> node("node-3", history)
                .run(c -> {
                    long end = System.nanoTime() + CELL.toNanos();
                    try {
                        if (fault == SpringFault.REDIS_PAUSED_SHORT) {
                            nemesis.pauseRedis(redis.server(), end, 300, LEASE.dividedBy(4));
                        } else {
                            nemesis.pauseRedis(redis.server(), end, 400, LEASE.multipliedBy(2));
                        }
                    } finally {
                        redis.server().resume();
                    }
                    // Redis answers again: the job runs again, once a period (a long pause can keep
                    // every run of a short cell from starting, so the cell ends on calm periods).
                    Nemesis.park(PERIOD.multipliedBy(3).toNanos());
                })));
        ScheduledRuns.judge(
                "holdAtLeast job under " + fault.label,
                history.holds(),
                HistoryChecker.withBounds(LOSS_BOUND, HANG_BOUND),
                nemesis.applied(),
                PERIOD);
    }

    @Test
    void oneRunPerPeriodWhenTheRunningNodeIsStoppedAndWhenItIsKilled() throws Exception {
        HistoryChecker checker = HistoryChecker.withBounds(LOSS_BOUND, HANG_BOUND);
        List<Path> files = new ArrayList<>();
        List<ChildJvm> children = new ArrayList<>();
        List<ChildJvm> killed = new ArrayList<>();
        int faults = 0;
        try {
            for (int i = 1; i <= 2; i++) {
                Path file = Files.createTempFile("history-child-" + i, ".tsv");
                files.add(file);
                children.add(redis.startChild(
                        ScheduledNodeMain.class,
                        "child-" + i,
                        Integer.toString(redis.server().port()),
                        Long.toString(LEASE.toMillis()),
                        file.toString()));
            }
            long starting = System.nanoTime();
            for (ChildJvm child : children) {
                child.awaitLineStartingWith("READY", Duration.ofSeconds(60));
            }
            System.out.println("child nodes ready after " + (System.nanoTime() - starting) / 1_000_000 + " ms");
            long scenario = System.nanoTime();
            // Stopped in the middle of its run for two leases: another node runs the next period.
            int stopped = awaitRun(children, killed);
            long from = HistoryClock.nowMicros();
            children.get(stopped).pause();
            Nemesis.park(LEASE.multipliedBy(2).toNanos());
            children.get(stopped).resume();
            checker.paused("child-" + (stopped + 1), from, HistoryClock.nowMicros());
            faults++;
            // Killed in the middle of its run: its lock returns after its lease.
            int victim = awaitRun(children, killed);
            long at = HistoryClock.nowMicros();
            children.get(victim).kill();
            killed.add(children.get(victim));
            checker.killed("child-" + (victim + 1), at);
            faults++;
            Nemesis.park(PERIOD.multipliedBy(2).toNanos());
            System.out.println("stopped and killed within " + (System.nanoTime() - scenario) / 1_000_000 + " ms");
            for (ChildJvm child : children) {
                if (!killed.contains(child)) {
                    child.send("STOP");
                    child.awaitLineStartingWith("DONE", Duration.ofSeconds(30));
                }
            }
            List<Hold> holds = new ArrayList<>();
            files.forEach(file -> holds.addAll(History.read(file)));
            ScheduledRuns.judge(
                    "holdAtLeast job under " + SpringFault.HOLDER_PAUSED.label + ", then "
                            + SpringFault.HOLDER_KILLED.label,
                    holds,
                    checker,
                    faults,
                    PERIOD);
        } finally {
            children.forEach(ChildJvm::close);
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
    }

    /** Waits until a live child starts a run after now; returns its index. */
    private static int awaitRun(List<ChildJvm> children, List<ChildJvm> killed) {
        int[] seen = new int[children.size()];
        for (int i = 0; i < children.size(); i++) {
            seen[i] = children.get(i).lines().size();
        }
        AtomicReference<Integer> running = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(2)).until(() -> {
            for (int i = 0; i < children.size(); i++) {
                List<String> lines = children.get(i).lines();
                if (!killed.contains(children.get(i))
                        && lines.subList(seen[i], lines.size()).stream().anyMatch(l -> l.startsWith("RUN"))) {
                    running.set(i);
                    return true;
                }
            }
            return false;
        });
        return running.get();
    }
}
