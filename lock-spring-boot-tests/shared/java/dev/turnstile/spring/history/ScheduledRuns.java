package dev.turnstile.spring.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.redis.Lease;
import dev.turnstile.test.history.History;
import dev.turnstile.test.history.HistoryChecker;
import dev.turnstile.test.history.Hold;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Records the runs of a scheduled job as holds of a history: every firing is an acquisition asked
 * for before the lock advice runs (the scheduler's task decorator begins it), granted when the job
 * body starts under its lease, and ended when the body ends. A firing whose body did not run was
 * refused (skipped) or failed (the scheduler's error handler saw an exception). The job body calls
 * {@link #started} and {@link #ended}.
 *
 * <p>A run counts in the period that fired it: its firing (the hold's request) comes at the start
 * of its period, or a moment before it for a scheduler whose timer runs a little early, so it
 * counts in the period that begins within a quarter of a period after it, or began before. A run
 * that Redis delayed (its grant came late, even into the next period) still counts in the period
 * that fired it.
 */
public final class ScheduledRuns {

    private static final ThreadLocal<Run> CURRENT = new ThreadLocal<>();

    /** Set in a child JVM: each run start is printed as {@code RUN}, for the test to stop or kill it then. */
    public static volatile boolean announce;

    private ScheduledRuns() {}

    /**
     * A single-thread scheduler (as Spring Boot's) whose firings of the job named {@code name} on
     * {@code node} are recorded in {@code history}.
     */
    public static ThreadPoolTaskScheduler scheduler(History history, String node, String primitive, String name) {
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
        scheduler.setThreadNamePrefix(node + "-scheduling-");
        scheduler.setErrorHandler(error -> {
            Run run = CURRENT.get();
            if (run != null) {
                run.failed = true;
            }
        });
        scheduler.setTaskDecorator(task -> () -> {
            Run run = new Run(history.begin(node, primitive, name, 1, Duration.ZERO));
            CURRENT.set(run);
            try {
                task.run();
            } finally {
                CURRENT.remove();
                if (!run.started) {
                    if (run.failed) {
                        run.recording.failed();
                    } else {
                        run.recording.refused();
                    }
                }
            }
        });
        return scheduler;
    }

    /** The job body started under {@code lease}. */
    public static void started(Lease lease) {
        Run run = CURRENT.get();
        run.started = true;
        run.recording.granted(lease.fencingToken());
        History.Recording recording = run.recording;
        lease.onLost(event -> recording.lost(event.overdue()));
        if (announce) {
            System.out.println("RUN " + lease.fencingToken());
            System.out.flush();
        }
    }

    /** The job body ended; {@code held} tells whether its lease was still held then. */
    public static void ended(BooleanSupplier held) {
        CURRENT.get().recording.release(held);
    }

    /** Works for {@code length}, or less if the thread is interrupted (the scheduler shuts down). */
    public static void work(Duration length) {
        long end = System.nanoTime() + length.toNanos();
        for (long left = length.toNanos(); left > 0 && !Thread.currentThread().isInterrupted(); ) {
            LockSupport.parkNanos(left);
            left = end - System.nanoTime();
        }
    }

    /** Returns the runs (granted holds) by the period that fired them. */
    public static Map<Long, List<Hold>> byPeriod(List<Hold> holds, Duration period) {
        long periodMicros = period.toNanos() / 1_000;
        Map<Long, List<Hold>> runs = new TreeMap<>();
        for (Hold hold : holds) {
            if (hold.granted()) {
                runs.computeIfAbsent((hold.requested() + periodMicros / 4) / periodMicros, p -> new ArrayList<>())
                        .add(hold);
            }
        }
        return runs;
    }

    /**
     * Judges a scheduled run's history: prints its verdict line, then asserts that the faults were
     * applied, that the job ran, and never twice in one period, and that the
     * checker explains every overlap, finds tokens increasing, no loss reported late and nothing
     * hanging.
     */
    public static void judge(String what, List<Hold> holds, HistoryChecker checker, int faults, Duration period) {
        HistoryChecker.Verdict verdict = checker.check(holds);
        Map<Long, List<Hold>> runs = byPeriod(holds, period);
        Map<Long, List<Hold>> twice = new TreeMap<>();
        runs.forEach((p, inPeriod) -> {
            if (inPeriod.size() > 1) {
                twice.put(p, inPeriod);
            }
        });
        System.out.println(what + " (" + faults + " faults): " + runs.size() + " periods run, " + twice.size()
                + " run twice; " + verdict);
        assertThat(faults).as("faults applied").isPositive();
        assertThat(runs).as("periods with a run").isNotEmpty();
        assertThat(twice).as("periods run more than once").isEmpty();
        assertThat(verdict.unexplainedOverlaps()).as("overlaps explained: %s", verdict).isZero();
        assertThat(verdict.tokenInversions()).as("tokens increase: %s", verdict).isZero();
        assertThat(verdict.hangs()).as("nothing hangs: %s", verdict).isZero();
        assertThat(verdict.lateLosses()).as("losses reported in time: %s", verdict).isZero();
    }

    private static final class Run {

        final History.Recording recording;
        volatile boolean started;
        volatile boolean failed;

        Run(History.Recording recording) {
            this.recording = recording;
        }
    }
}
