package dev.turnstile.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.turnstile.redis.AwakeWaiting;
import dev.turnstile.redis.Lease;
import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.spring.BootLine;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@code turnstile.min-replicas}, {@code turnstile.replica-timeout} and {@code
 * turnstile.lock.cohort.*} reach the auto-configured {@code Turnstile}: each is seen by what it
 * changes in Redis, on a server that has no replica.
 */
class ReplicaAndCohortPropertiesTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(BootLine.turnstile())
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port());
    }

    @Test
    void minReplicasMakesAGrantNoReplicaConfirmsFail() {
        runner().withPropertyValues("turnstile.min-replicas=1", "turnstile.replica-timeout=200ms")
                .run(context -> {
                    Turnstile turnstile = context.getBean(Turnstile.class);
                    assertThatThrownBy(() -> turnstile.lock("replicated").acquire(Duration.ZERO, null))
                            .as("the server has no replica to confirm the grant")
                            .isInstanceOf(RedisUnavailableException.class);
                    assertThat(turnstile.lock("replicated").isLocked())
                            .as("the unconfirmed grant was released")
                            .isFalse();
                });
        runner().run(context -> {
            try (Lease lease = context.getBean(Turnstile.class).lock("replicated").acquire(Duration.ZERO, null)) {
                assertThat(lease.isHeld()).as("off by default").isTrue();
            }
        });
    }

    @Test
    void theCohortsMaxAgeIsTheHoldOffOfAForcedRelease() {
        runner().withPropertyValues("turnstile.lock.cohort.holders=8", "turnstile.lock.cohort.max-age=5s")
                .run(context -> {
                    Turnstile turnstile = context.getBean(Turnstile.class);
                    Lease lease = turnstile.lock("cohort").acquire(Duration.ZERO, Duration.ofSeconds(30));
                    assertThat(turnstile.lock("cohort").forceRelease()).containsExactly("cohort");
                    try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(2))) {
                        assertThat(client.pttl("turnstile:lock:{cohort}"))
                                .as("the hold-off is the configured max age, not the default 20 ms")
                                .isBetween(1_000L, 5_000L);
                        client.del("turnstile:lock:{cohort}");
                    }
                    assertThat(lease.release()).isFalse();
                });
    }

    @Test
    void awakeWaitingIsSetByItsPropertyAndByDefaultAsTheLibrarysDefault() {
        runner().withPropertyValues("turnstile.lock.cohort.awake-waiting=never")
                .run(context -> assertThat(
                                context.getBean(Turnstile.class).diagnostics().queuedThreadsWaitAwake())
                        .isFalse());
        runner().withPropertyValues("turnstile.lock.cohort.awake-waiting=always")
                .run(context -> assertThat(
                                context.getBean(Turnstile.class).diagnostics().queuedThreadsWaitAwake())
                        .isTrue());
        runner().run(context -> {
            assertThat(context.getBean(TurnstileProperties.class)
                            .getLock()
                            .getCohort()
                            .getAwakeWaiting())
                    .isEqualTo(AwakeWaiting.AUTO);
            try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(2));
                    Turnstile library = Turnstile.builder(client).build()) {
                assertThat(context.getBean(Turnstile.class).diagnostics().queuedThreadsWaitAwake())
                        .as("auto, as the library decides it on this machine")
                        .isEqualTo(library.diagnostics().queuedThreadsWaitAwake());
            }
        });
        runner().withPropertyValues("turnstile.lock.cohort.awake-waiting=sometimes")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .hasStackTraceContaining(
                                "Failed to bind properties under 'turnstile.lock.cohort.awake-waiting'"));
    }

    @Test
    void aCohortOfNoHoldersOrNegativeReplicasFailTheStartNamingTheProperty() {
        runner().withPropertyValues("turnstile.lock.cohort.holders=0")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining(
                                "'turnstile.lock.cohort.holders' must be between 1 (no local hand-off) and 1000000 but was 0"));
        runner().withPropertyValues("turnstile.min-replicas=-1")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("'turnstile.min-replicas' must be zero (off) or positive but was -1"));
    }
}
