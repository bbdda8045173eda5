package dev.turnstile.shedlock;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LockFactory;
import dev.turnstile.redis.NamedLock;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.spring.BootLine;
import dev.turnstile.spring.history.Nemesis;
import dev.turnstile.spring.history.ScheduledRuns;
import dev.turnstile.spring.history.SpringFault;
import dev.turnstile.test.history.History;
import dev.turnstile.test.history.HistoryChecker;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * ShedLock's {@code @SchedulerLock} on {@link TurnstileLockProvider}, on three nodes under faults:
 * a job fired every second with {@code lockAtLeastFor = "700ms"} runs at most once per period, and
 * its runs, as holds, are judged by the history checker. The provider is built on a lock factory
 * that hands the job the lease it took (ShedLock shows the job none), for the run's fencing token
 * and loss. {@code -Dhistory.schedule=long} runs each cell for 20 s instead of 4 s.
 */
class SchedulerLockHistoryIntegrationTests {

    private static final boolean LONG = "long".equals(System.getProperty("history.schedule"));
    private static final Duration CELL = LONG ? Duration.ofSeconds(20) : Duration.ofSeconds(4);
    private static final Duration PERIOD = Duration.ofSeconds(1);
    /** lockAtMostFor: the lease, fixed, not renewed. */
    private static final Duration LEASE = Duration.ofMillis(800);
    /**
     * Shorter than the long Redis pause, as in the core's history runs: a call caught by it fails.
     * (A longer timeout returns grants after their lease's local deadline, reported lost at once.)
     */
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final Duration LOSS_BOUND = Duration.ofMillis(200);
    private static final Duration HANG_BOUND = TIMEOUT.multipliedBy(4);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private ApplicationContextRunner node(String name, History history) {
        return new ApplicationContextRunner()
                .withConfiguration(BootLine.turnstile())
                .withUserConfiguration(Config.class)
                .withBean(History.class, () -> history)
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port(),
                        "spring.data.redis.timeout=" + TIMEOUT.toMillis() + "ms",
                        "node=" + name);
    }

    @ParameterizedTest(name = "under {0}")
    @EnumSource(names = {"REDIS_PAUSED_LONG", "RUN_OUTLIVES_LEASE"})
    void oneRunPerPeriod(SpringFault fault) {
        History history = History.inMemory();
        Nemesis nemesis = new Nemesis();
        ReportJob.OVERRUNS.set(0);
        node("node-1", history).run(a -> node("node-2", history).run(b -> node("node-3", history)
                .run(c -> {
                    long end = System.nanoTime() + CELL.toNanos();
                    try {
                        if (fault == SpringFault.REDIS_PAUSED_LONG) {
                            nemesis.pauseRedis(redis.server(), end, 400, LEASE.multipliedBy(2));
                        } else {
                            // Every other period or so, the next run works twice its lease.
                            while (end - System.nanoTime() > 0) {
                                ReportJob.OVERRUN.set(true);
                                Nemesis.park(Math.min(PERIOD.multipliedBy(2).toNanos(), end - System.nanoTime()));
                            }
                        }
                    } finally {
                        ReportJob.OVERRUN.set(false);
                        redis.server().resume();
                    }
                })));
        int faults = fault == SpringFault.RUN_OUTLIVES_LEASE ? ReportJob.OVERRUNS.get() : nemesis.applied();
        ScheduledRuns.judge(
                "@SchedulerLock job under " + fault.label,
                history.holds(),
                HistoryChecker.withBounds(LOSS_BOUND, HANG_BOUND),
                faults,
                PERIOD);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    @EnableSchedulerLock(defaultLockAtMostFor = "800ms")
    static class Config {

        @Bean
        ReportJob reportJob() {
            return new ReportJob();
        }

        @Bean
        LockProvider lockProvider(Turnstile turnstile) {
            return new TurnstileLockProvider(new HandingLocks(turnstile));
        }

        @Bean
        ThreadPoolTaskScheduler taskScheduler(History history, Environment environment) {
            return ScheduledRuns.scheduler(history, environment.getProperty("node"), "ShedLock job", "report");
        }
    }

    static class ReportJob {

        static final AtomicBoolean OVERRUN = new AtomicBoolean();
        static final AtomicInteger OVERRUNS = new AtomicInteger();

        @Scheduled(cron = "* * * * * *")
        @SchedulerLock(name = "report", lockAtLeastFor = "700ms", lockAtMostFor = "800ms")
        public void report() {
            Lease lease = HandingLocks.taken();
            ScheduledRuns.started(lease);
            if (OVERRUN.getAndSet(false)) {
                OVERRUNS.incrementAndGet();
                ScheduledRuns.work(LEASE.multipliedBy(2));
            } else {
                ScheduledRuns.work(Duration.ofMillis(200));
            }
            ScheduledRuns.ended(lease::isHeld);
        }
    }

    /** Turnstile's locks, handing each lease taken to the job about to run on the same thread. */
    record HandingLocks(LockFactory locks) implements LockFactory {

        private static final ThreadLocal<Lease> TAKEN = new ThreadLocal<>();

        static Lease taken() {
            Lease lease = TAKEN.get();
            TAKEN.remove();
            return lease;
        }

        @Override
        public NamedLock lock(String name) {
            return new Handing(this.locks.lock(name));
        }

        @Override
        public NamedLock lock(Collection<String> names) {
            return new Handing(this.locks.lock(names));
        }
    }

    record Handing(NamedLock lock) implements NamedLock {

        @Override
        public List<String> names() {
            return this.lock.names();
        }

        @Override
        public Optional<Lease> tryAcquire(Duration wait, @Nullable Duration leaseTime) {
            Optional<Lease> lease = this.lock.tryAcquire(wait, leaseTime);
            lease.ifPresent(HandingLocks.TAKEN::set);
            return lease;
        }

        @Override
        public boolean isLocked() {
            return this.lock.isLocked();
        }

        @Override
        public List<String> forceRelease() {
            return this.lock.forceRelease();
        }
    }
}
