package dev.turnstile.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.annotation.Semaphore;
import dev.turnstile.spring.BootLine;
import dev.turnstile.test.redis.RedisServerExtension;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.AsyncTaskExecutor;

/**
 * Guarded methods called from virtual threads ({@code spring.threads.virtual.enabled=true}): Spring
 * Boot's own task executor runs every call on a virtual thread of its own, more threads than the
 * machine has carriers by far, all contending in Redis and in Turnstile's local queues.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadsIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(BootLine.turnstile())
            .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class))
            .withUserConfiguration(Services.class)
            .withPropertyValues(
                    "spring.threads.virtual.enabled=true",
                    "spring.data.redis.host=127.0.0.1",
                    "spring.data.redis.port=" + redis.server().port(),
                    "spring.data.redis.jedis.pool.max-active=64");

    @Test
    void aThousandVirtualThreadsOnOneLockNeverOverlapAndTwoHundredNeverExceedTheSemaphore() {
        this.runner.run(context -> {
            AsyncTaskExecutor executor = context.getBean("applicationTaskExecutor", AsyncTaskExecutor.class);
            Guarded guarded = context.getBean(Guarded.class);
            Stats stats = context.getBean(Stats.class);

            List<CompletableFuture<?>> calls = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                calls.add(executor.submitCompletable(guarded::locked));
            }
            for (int i = 0; i < 200; i++) {
                calls.add(executor.submitCompletable(guarded::limited));
            }
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);

            assertThat(stats.virtual).as("every call ran on a virtual thread").hasValue(1200);
            List<long[]> holds = new ArrayList<>(stats.lockHolds);
            assertThat(holds).hasSize(1000);
            holds.sort(Comparator.comparingLong(hold -> hold[0]));
            for (int i = 1; i < holds.size(); i++) {
                assertThat(holds.get(i)[0])
                        .as("hold %d starts after hold %d ended", i, i - 1)
                        .isGreaterThanOrEqualTo(holds.get(i - 1)[1]);
            }
            assertThat(stats.permitCalls).hasValue(200);
            assertThat(stats.mostInside).as("never more than 5 inside").hasValueLessThanOrEqualTo(5);
            assertThat(stats.mostInside).as("the permits were used").hasValueGreaterThan(1);
        });
    }

    /** What the guarded calls saw; a bean of its own, since the guarded bean is a proxy. */
    static final class Stats {
        final List<long[]> lockHolds = new CopyOnWriteArrayList<>();
        final AtomicInteger virtual = new AtomicInteger();
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger mostInside = new AtomicInteger();
        final AtomicInteger permitCalls = new AtomicInteger();
    }

    public static class Guarded {
        private final Stats stats;

        Guarded(Stats stats) {
            this.stats = stats;
        }

        @DistributedLock(key = "hot", waitTime = "5m")
        public void locked() {
            long start = System.nanoTime();
            countVirtual();
            // A hold of real length (1 ms), so a second holder let in meanwhile overlaps it.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            this.stats.lockHolds.add(new long[] {start, System.nanoTime()});
        }

        @Semaphore(key = "partner", limit = 5, waitTime = "5m")
        public void limited() {
            int now = this.stats.inside.incrementAndGet();
            this.stats.mostInside.accumulateAndGet(now, Math::max);
            countVirtual();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            this.stats.inside.decrementAndGet();
            this.stats.permitCalls.incrementAndGet();
        }

        private void countVirtual() {
            try {
                if ((Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread())) {
                    this.stats.virtual.incrementAndGet();
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Services {
        @Bean
        Stats stats() {
            return new Stats();
        }

        @Bean
        Guarded guarded(Stats stats) {
            return new Guarded(stats);
        }
    }
}
