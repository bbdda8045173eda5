package dev.turnstile.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.annotation.Semaphore;
import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.SemaphoreFullException;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.spring.LockContext;
import dev.turnstile.spring.actuate.TurnstileEndpoint;
import dev.turnstile.spring.autoconfigure.TurnstileAutoConfiguration;
import dev.turnstile.test.redis.RedisServerExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import dev.turnstile.spring.BootLine;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class ObservabilityIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    BootLine.turnstile())
            .withUserConfiguration(Instrumented.class)
            .withPropertyValues(
                    "spring.data.redis.host=127.0.0.1",
                    "spring.data.redis.port=" + redis.server().port(),
                    "turnstile.default-lease=300ms");

    @Test
    void metricsCountKnownWorkByTemplateNotByKey() {
        this.runner.run(context -> {
            Work work = context.getBean(Work.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            for (int i = 0; i < 10; i++) {
                work.locked("item-" + i);
            }
            try (Turnstile other = Turnstile.builder(redis.server().client()).build();
                    Lease busy = other.lock("item:busy").acquire(Duration.ZERO, null)) {
                for (int i = 0; i < 2; i++) {
                    assertThatThrownBy(() -> work.locked("busy")).isInstanceOf(LockAcquisitionException.class);
                }
            }
            assertThat(meters.get("turnstile.acquire")
                            .tags("kind", "lock", "name", "item:#id", "outcome", "acquired")
                            .timer()
                            .count())
                    .isEqualTo(10);
            assertThat(meters.get("turnstile.acquire")
                            .tags("outcome", "busy")
                            .timer()
                            .count())
                    .isEqualTo(2);
            assertThat(meters.find("turnstile.acquire").timers())
                    .as("one timer per outcome, each acquisition counted once")
                    .hasSize(2)
                    .allSatisfy(timer -> assertThat(timer.getId().getTag("error")).isEqualTo("none"));
            assertThat(meters.get("turnstile.held")
                            .tags("name", "item:#id")
                            .timer()
                            .count())
                    .isEqualTo(10);
            assertThat(meters.find("turnstile.acquire")
                            .tag("name", "item:item-1")
                            .timers())
                    .as("never tagged by a resolved key")
                    .isEmpty();
            assertThat(context.getBean(Handler.class).started).hasSize(12).allMatch("turnstile.acquire"::equals);
        });
    }

    @Test
    void aWaitingCallerIsOneActiveTaskOfTheLongTaskTimerUntilItIsGranted() {
        this.runner.run(context -> {
            Work work = context.getBean(Work.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            CompletableFuture<String> waiter;
            try (Turnstile other = Turnstile.builder(redis.server().client()).build();
                    Lease busy = other.lock("item:awaited").acquire(Duration.ZERO, null)) {
                waiter = CompletableFuture.supplyAsync(() -> work.waiting("awaited"));
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> meters.find("turnstile.acquire.active")
                                        .tags("kind", "lock", "name", "item:#id")
                                        .longTaskTimer()
                                        != null);
                // Polled while the other process still holds the lock: the caller is waiting.
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> meters.get("turnstile.acquire.active")
                                        .tags("kind", "lock", "name", "item:#id")
                                        .longTaskTimer()
                                        .activeTasks()
                                == 1);
                assertThat(waiter).isNotDone();
            }
            assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo("awaited");
            assertThat(meters.get("turnstile.acquire.active")
                            .tags("kind", "lock", "name", "item:#id")
                            .longTaskTimer()
                            .activeTasks())
                    .as("no wait left once the caller was granted")
                    .isZero();
        });
    }

    @Test
    void withoutAnObservationRegistryTheTimerIsStillRecordedOncePerAcquisition() {
        new ApplicationContextRunner()
                .withConfiguration(BootLine.turnstile())
                .withUserConfiguration(MetersOnly.class)
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port())
                .run(context -> {
                    assertThat(context).doesNotHaveBean(ObservationRegistry.class);
                    context.getBean(Work.class).locked("no-registry");
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.get("turnstile.acquire")
                                    .tags("kind", "lock", "name", "item:#id", "outcome", "acquired", "error", "none")
                                    .timer()
                                    .count())
                            .isEqualTo(1);
                    assertThat(meters.find("turnstile.acquire").timers()).hasSize(1);
                });
    }

    @Test
    void anAcquireObservationConventionBeanNamesTheObservationAndItsTimer() {
        this.runner.withBean(AcquireObservationConvention.class, Renamed::new).run(context -> {
            context.getBean(Work.class).locked("renamed");
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("app.lock.wait")
                            .tags("guard", "item:#id", "result", "acquired")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(meters.find("turnstile.acquire").timers()).isEmpty();
            assertThat(context.getBean(Handler.class).started).containsExactly("app.lock.wait");
        });
    }

    /** Renames the observation and its keys. */
    static final class Renamed implements AcquireObservationConvention {
        @Override
        public String getName() {
            return "app.lock.wait";
        }

        @Override
        public io.micrometer.common.KeyValues getLowCardinalityKeyValues(AcquireObservationContext context) {
            io.micrometer.common.KeyValues keyValues = io.micrometer.common.KeyValues.of("guard", context.getGuardName());
            return context.getOutcome() == null ? keyValues : keyValues.and("result", context.getOutcome().tag());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MetersOnly {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        Work work() {
            return new Work();
        }
    }

    @Test
    void semaphoreRejectionsRenewalsAndLostLeasesAreCounted() {
        this.runner.run(context -> {
            Work work = context.getBean(Work.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> work.limited(inside, release));
            inside.await(5, TimeUnit.SECONDS);
            assertThat(meters.get("turnstile.permits.in.use")
                            .tag("name", "api")
                            .gauge()
                            .value())
                    .isEqualTo(1);
            assertThatThrownBy(() -> work.limited(new CountDownLatch(1), new CountDownLatch(0)))
                    .isInstanceOf(SemaphoreFullException.class);
            assertThat(meters.get("turnstile.semaphore.rejections")
                            .tag("name", "api")
                            .counter()
                            .count())
                    .isEqualTo(1);
            // Held past the 300 ms default lease: the watchdog renews it.
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> meters.find("turnstile.lease.renewals").counter() != null
                            && meters.get("turnstile.lease.renewals").counter().count() >= 2);
            release.countDown();
            holder.join();
            assertThat(meters.get("turnstile.permits.in.use")
                            .tag("name", "api")
                            .gauge()
                            .value())
                    .isZero();

            work.outlivesLease();
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> meters.find("turnstile.lease.lost").counter() != null);
            assertThat(meters.get("turnstile.lease.lost")
                            .tags("kind", "lock", "reason", "lease_elapsed")
                            .counter()
                            .count())
                    .isEqualTo(1);
        });
    }

    @Test
    void endpointShowsThisNodesHoldsAndRedisAndForceReleases() {
        this.runner.run(context -> {
            Work work = context.getBean(Work.class);
            TurnstileEndpoint endpoint = context.getBean(TurnstileEndpoint.class);
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Long> holder =
                    CompletableFuture.supplyAsync(() -> work.holding("shown", inside, release));
            inside.await(5, TimeUnit.SECONDS);

            TurnstileEndpoint.Report report = endpoint.report();
            assertThat(report.node()).singleElement().satisfies(hold -> {
                assertThat(hold.kind()).isEqualTo("lock");
                assertThat(hold.keys()).containsExactly("item:shown");
                assertThat(hold.method()).isEqualTo("Work.holding(String, CountDownLatch, CountDownLatch)");
                assertThat(hold.leaseRemainingMillis()).isPositive();
                assertThat(hold.fencingTokens()).containsKey("item:shown");
            });
            assertThat(report.redis().locks())
                    .extracting(TurnstileEndpoint.RedisLock::name)
                    .containsExactly("item:shown");

            assertThat(endpoint.forceRelease("item:shown")).containsEntry("released", List.of("item:shown"));
            assertThat(endpoint.report().redis().locks()).isEmpty();
            release.countDown();
            holder.join();
            assertThat(endpoint.report().node()).isEmpty();

            BootLine.HealthView health = BootLine.health(context);
            assertThat(health.status()).isEqualTo("UP");
            assertThat(health.details()).containsEntry("watchdog", "running").containsKey("scriptsLoaded");
        });
    }

    @Test
    void healthIsDownWithAReasonOnceTheWatchdogStopped() {
        this.runner.run(context -> {
            assertThat(BootLine.health(context).status()).isEqualTo("UP");
            // Closing the Turnstile stops its watchdog: no lease would be renewed any more.
            context.getBean(Turnstile.class).close();
            BootLine.HealthView health = BootLine.health(context);
            assertThat(health.status()).isEqualTo("DOWN");
            assertThat(health.details())
                    .containsEntry("watchdog", "stopped")
                    .hasEntrySatisfying("reason", reason -> assertThat(reason)
                            .asString()
                            .contains("the lease watchdog is stopped"));
        });
    }

    @Test
    void healthIsDownWhenRedisIsGone() {
        this.runner
                .withPropertyValues("spring.data.redis.port=1", "spring.data.redis.timeout=300ms")
                .run(context -> {
                    assertThat(BootLine.health(context).status()).isEqualTo("DOWN");
                });
    }

    public static class Work {

        @DistributedLock(key = "item:#id", waitTime = "0s")
        public String locked(String id) {
            return id;
        }

        @DistributedLock(key = "item:#id", waitTime = "10s")
        public String waiting(String id) {
            return id;
        }

        @DistributedLock(key = "item:#id", waitTime = "0s")
        public long holding(String id, CountDownLatch inside, CountDownLatch release) {
            inside.countDown();
            await(release);
            return LockContext.current().fencingToken();
        }

        @Semaphore(key = "api", limit = 1)
        public void limited(CountDownLatch inside, CountDownLatch release) {
            inside.countDown();
            await(release);
        }

        @DistributedLock(key = "short", leaseTime = "100ms")
        public void outlivesLease() {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        }

        private static void await(CountDownLatch latch) {
            try {
                latch.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Records the observations started. */
    static final class Handler implements ObservationHandler<io.micrometer.observation.Observation.Context> {
        final List<String> started = new CopyOnWriteArrayList<>();

        @Override
        public void onStart(io.micrometer.observation.Observation.Context context) {
            this.started.add(context.getName());
        }

        @Override
        public boolean supportsContext(io.micrometer.observation.Observation.Context context) {
            return true;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Instrumented {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        Handler handler() {
            return new Handler();
        }

        @Bean
        ObservationRegistry observationRegistry(Handler handler, MeterRegistry meters) {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig()
                    .observationHandler(handler)
                    .observationHandler(new DefaultMeterObservationHandler(meters));
            return registry;
        }

        @Bean
        Work work() {
            return new Work();
        }
    }
}
