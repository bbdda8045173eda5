package dev.turnstile.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import redis.clients.jedis.UnifiedJedis;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.annotation.OnFailure;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.spring.BootLine;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;

/** {@code holdAtLeast}: the lock outlives a method that ends early, by the server's clock, then expires. */
class HoldAtLeastIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(BootLine.turnstile())
            .withUserConfiguration(Config.class)
            .withPropertyValues(
                    "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port());

    @Test
    void aJobThatReturnsEarlyKeepsItsLockForTheHoldThenItExpiresWithoutARelease() {
        this.runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            Turnstile turnstile = context.getBean(Turnstile.class);
            long start = System.nanoTime();
            assertThat(jobs.report()).isTrue();
            assertThat(ttl("job:report")).as("set to what is left of the hold").isBetween(1L, 800L);
            assertThat(turnstile.lock("job:report").isLocked()).isTrue();
            assertThat(jobs.report()).as("a second run in the same period is skipped").isNull();
            assertThat(jobs.runs()).isEqualTo(1);
            await().atMost(Duration.ofSeconds(3)).until(() -> !turnstile.lock("job:report").isLocked());
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(800));
            assertThat(jobs.report()).as("the next period runs").isTrue();
        });
    }

    @Test
    void aFailedRunHoldsTooUnlessHoldAtLeastOnFailureIsFalse() {
        this.runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            Turnstile turnstile = context.getBean(Turnstile.class);
            assertThatThrownBy(jobs::failingHeld).isInstanceOf(IllegalStateException.class);
            assertThat(turnstile.lock("job:failing-held").isLocked()).isTrue();
            assertThatThrownBy(jobs::failingRetried).isInstanceOf(IllegalStateException.class);
            assertThat(turnstile.lock("job:failing-retried").isLocked())
                    .as("released at once so another node may retry")
                    .isFalse();
        });
    }

    @Test
    void futuresAndMonosHoldFromTheirCompletion() {
        this.runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            Turnstile turnstile = context.getBean(Turnstile.class);
            assertThat(jobs.asyncReport().join()).isEqualTo("done");
            assertThat(turnstile.lock("job:async").isLocked()).isTrue();
            assertThat(ttl("job:async")).isBetween(1L, 800L);

            assertThat(jobs.reactiveReport().block()).isEqualTo("done");
            assertThat(turnstile.lock("job:reactive").isLocked()).isTrue();
            assertThatThrownBy(() -> jobs.reactiveFailingRetried().block()).hasMessageContaining("boom");
            await().atMost(Duration.ofSeconds(2)).until(() -> !turnstile.lock("job:reactive-failing").isLocked());
            await().atMost(Duration.ofSeconds(3)).until(() -> !turnstile.lock("job:reactive").isLocked());
        });
    }

    private static long ttl(String name) {
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(2))) {
            return client.pttl("turnstile:lock:{" + name + "}");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    static class Jobs {

        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return this.runs.get();
        }

        @DistributedLock(key = "job:report", holdAtLeast = "800ms", waitTime = "0s", onFailure = OnFailure.SKIP)
        public Boolean report() {
            this.runs.incrementAndGet();
            return true;
        }

        @DistributedLock(key = "job:failing-held", holdAtLeast = "5s", waitTime = "0s")
        public void failingHeld() {
            throw new IllegalStateException("boom");
        }

        @DistributedLock(
                key = "job:failing-retried",
                holdAtLeast = "5s",
                holdAtLeastOnFailure = false,
                waitTime = "0s")
        public void failingRetried() {
            throw new IllegalStateException("boom");
        }

        @DistributedLock(key = "job:async", holdAtLeast = "800ms", waitTime = "0s")
        public CompletableFuture<String> asyncReport() {
            return CompletableFuture.supplyAsync(() -> "done");
        }

        @DistributedLock(key = "job:reactive", holdAtLeast = "800ms", waitTime = "0s")
        public Mono<String> reactiveReport() {
            return Mono.just("done");
        }

        @DistributedLock(
                key = "job:reactive-failing",
                holdAtLeast = "5s",
                holdAtLeastOnFailure = false,
                waitTime = "0s")
        public Mono<String> reactiveFailingRetried() {
            return Mono.error(new IllegalStateException("boom"));
        }
    }
}
