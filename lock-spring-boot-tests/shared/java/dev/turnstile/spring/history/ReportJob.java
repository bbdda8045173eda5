package dev.turnstile.spring.history;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.annotation.OnFailure;
import dev.turnstile.spring.LockContext;
import dev.turnstile.test.history.History;
import java.time.Duration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * A report job fired every second on every node, run once per period with {@code holdAtLeast}:
 * the job of the scheduled history runs, in the test JVM and in child JVMs alike. Its runs are
 * recorded by {@link ScheduledRuns}.
 */
public class ReportJob {

    /** How long the lock stays taken after the grant, at least: most of the one-second period. */
    public static final String HOLD_AT_LEAST = "700ms";
    /** How long a run works. */
    public static final Duration WORK = Duration.ofMillis(200);

    @Scheduled(cron = "* * * * * *")
    @DistributedLock(key = "report", holdAtLeast = HOLD_AT_LEAST, waitTime = "0s", onFailure = OnFailure.SKIP)
    public void report() {
        LockContext lock = LockContext.current();
        ScheduledRuns.started(lock.lease());
        ScheduledRuns.work(WORK);
        ScheduledRuns.ended(lock::isHeld);
    }

    /** The job and a recording scheduler; the node's {@link History} and name come from the context. */
    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    public static class Config {

        @Bean
        ReportJob reportJob() {
            return new ReportJob();
        }

        @Bean
        ThreadPoolTaskScheduler taskScheduler(History history, Environment environment) {
            return ScheduledRuns.scheduler(history, environment.getProperty("node"), "scheduled job", "report");
        }
    }
}
