package dev.turnstile.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.annotation.OnFailure;
import dev.turnstile.spring.BootLine;
import dev.turnstile.test.redis.RedisServerExtension;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A scheduled job on three nodes whose clocks disagree: each node fires the same job every period,
 * 0, 150 and 300 ms apart (as {@code @Scheduled} does on machines whose clocks are that far apart).
 * With {@code holdAtLeast} the job body runs exactly once per period and never twice at once;
 * without it, a fast job is released before the late nodes fire, and they run it again.
 */
class ScheduledJobIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long PERIOD_MS = 600;
    private static final long[] SKEW_MS = {0, 150, 300};
    private static final List<Run> RUNS = new CopyOnWriteArrayList<>();

    @BeforeEach
    void clear() {
        RUNS.clear();
    }

    private ApplicationContextRunner node(String name) {
        return new ApplicationContextRunner()
                .withConfiguration(BootLine.turnstile())
                .withUserConfiguration(Config.class)
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port(),
                        "node=" + name);
    }

    @Test
    void holdAtLeastRunsTheJobExactlyOncePerPeriodAcrossThreeSkewedNodes() {
        int periods = 20;
        Map<Long, List<Run>> byPeriod = runOnThreeNodes(periods, ReportJob::withHold);
        assertThat(byPeriod).as("a run in every period").hasSize(periods);
        byPeriod.forEach((period, runs) ->
                assertThat(runs).as("runs in period %d", period).hasSize(1));
        assertNoOverlap();
    }

    @Test
    void withoutHoldAtLeastTheLateNodesRunAFastJobAgainInTheSamePeriod() {
        Map<Long, List<Run>> byPeriod = runOnThreeNodes(3, ReportJob::withoutHold);
        assertThat(byPeriod.values()).allSatisfy(runs -> assertThat(runs).hasSize(3));
        assertNoOverlap();
    }

    /** Fires {@code job} on nodes a, b, c at each period's start plus their skew; returns the runs by period. */
    private Map<Long, List<Run>> runOnThreeNodes(int periods, Consumer<ReportJob> job) {
        node("a")
                .run(a -> node("b")
                        .run(b -> node("c").run(c -> {
                            List<ApplicationContext> nodes = List.of(a, b, c);
                            // Warm every node's connection and scripts first, so no period starts with a cold client.
                            nodes.forEach(n -> n.getBean(ReportJob.class).warmUp());
                            ScheduledExecutorService clocks = Executors.newScheduledThreadPool(3);
                            long origin = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
                            ReportJob.origin = origin;
                            try {
                                for (int i = 0; i < nodes.size(); i++) {
                                    ReportJob bean = nodes.get(i).getBean(ReportJob.class);
                                    long firstFire =
                                            origin + TimeUnit.MILLISECONDS.toNanos(SKEW_MS[i]) - System.nanoTime();
                                    clocks.scheduleAtFixedRate(
                                            () -> job.accept(bean),
                                            firstFire,
                                            TimeUnit.MILLISECONDS.toNanos(PERIOD_MS),
                                            TimeUnit.NANOSECONDS);
                                }
                                LockSupport.parkNanos(origin
                                        + TimeUnit.MILLISECONDS.toNanos(periods * PERIOD_MS - 50)
                                        - System.nanoTime());
                            } finally {
                                clocks.shutdownNow();
                                clocks.awaitTermination(5, TimeUnit.SECONDS);
                            }
                        })));
        Map<Long, List<Run>> byPeriod = new TreeMap<>();
        for (Run run : RUNS) {
            byPeriod.computeIfAbsent(run.period(), p -> new ArrayList<>()).add(run);
        }
        return byPeriod;
    }

    private static void assertNoOverlap() {
        List<Run> runs = new ArrayList<>(RUNS);
        runs.sort(Comparator.comparingLong(Run::start));
        for (int i = 1; i < runs.size(); i++) {
            assertThat(runs.get(i).start())
                    .as("run %d starts after run %d ended", i, i - 1)
                    .isGreaterThanOrEqualTo(runs.get(i - 1).end());
        }
    }

    /**
     * One run of the job body.
     *
     * @param node the node that ran it
     * @param period which period it fell in
     * @param start when the body began ({@link System#nanoTime()}, one clock for all nodes)
     * @param end when it ended
     */
    record Run(String node, long period, long start, long end) {}

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        ReportJob reportJob(org.springframework.core.env.Environment environment) {
            return new ReportJob(environment.getProperty("node"));
        }
    }

    static class ReportJob {

        static volatile long origin;
        private final String node;

        ReportJob(String node) {
            this.node = node;
        }

        @DistributedLock(key = "report:warm-up:#root.target.node", waitTime = "0s")
        public void warmUp() {}

        public String getNode() {
            return this.node;
        }

        @DistributedLock(key = "report:daily", holdAtLeast = "450ms", waitTime = "0s", onFailure = OnFailure.SKIP)
        public void withHold() {
            body();
        }

        @DistributedLock(key = "report:naive", waitTime = "0s", onFailure = OnFailure.SKIP)
        public void withoutHold() {
            body();
        }

        /** A fast job: 50 ms of work. */
        private void body() {
            long start = System.nanoTime();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            long end = System.nanoTime();
            long period = (start - origin) / TimeUnit.MILLISECONDS.toNanos(PERIOD_MS);
            RUNS.add(new Run(this.node, period, start, end));
        }
    }
}
