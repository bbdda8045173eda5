package dev.turnstile.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.spring.BootLine;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * An application already on ShedLock ({@code @SchedulerLock}; 6 on Spring Boot 3.5, 7 on Spring
 * Boot 4) moves to Turnstile by dropping its own {@code LockProvider} bean: the starter provides
 * one, and two nodes run a job once per hold.
 */
class SchedulerLockIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final AtomicInteger RUNS = new AtomicInteger();

    private ApplicationContextRunner node() {
        return new ApplicationContextRunner()
                .withConfiguration(BootLine.turnstile())
                .withConfiguration(AutoConfigurations.of(TurnstileShedLockAutoConfiguration.class))
                .withUserConfiguration(Jobs.class)
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port());
    }

    @Test
    void schedulerLockJobsRunOnceAcrossNodesOnTheAutoConfiguredProvider() {
        assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()))
                .contains(TurnstileShedLockAutoConfiguration.class.getName());
        node().run(a -> node().run(b -> {
            assertThat(a.getBean(LockProvider.class)).isInstanceOf(TurnstileLockProvider.class);
            Turnstile turnstile = a.getBean(Turnstile.class);
            a.getBean(NightlyJob.class).run();
            b.getBean(NightlyJob.class).run();
            assertThat(RUNS.get())
                    .as("the second node skips while lockAtLeastFor lasts")
                    .isEqualTo(1);
            assertThat(turnstile.lock("nightly").isLocked()).isTrue();
            await().atMost(Duration.ofSeconds(3))
                    .until(() -> !turnstile.lock("nightly").isLocked());
            b.getBean(NightlyJob.class).run();
            assertThat(RUNS.get()).isEqualTo(2);
        }));
    }

    @Test
    void anApplicationProviderIsKept() {
        node().withBean("lockProvider", LockProvider.class, () -> configuration -> java.util.Optional.empty())
                .run(context ->
                        assertThat(context.getBean(LockProvider.class)).isNotInstanceOf(TurnstileLockProvider.class));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableSchedulerLock(defaultLockAtMostFor = "10s")
    static class Jobs {

        @Bean
        NightlyJob nightlyJob() {
            return new NightlyJob();
        }
    }

    static class NightlyJob {

        @SchedulerLock(name = "nightly", lockAtLeastFor = "800ms")
        public void run() {
            RUNS.incrementAndGet();
        }
    }
}
