package dev.turnstile.spring.internal.redis;

import dev.turnstile.spring.autoconfigure.redis.RedisConnection;
import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.redis.Lease;
import dev.turnstile.test.redis.RedisClients;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.spring.BootLine;
import dev.turnstile.spring.autoconfigure.TurnstileAutoConfiguration;
import dev.turnstile.redis.semaphore.Permit;
import dev.turnstile.test.redis.RedisServerExtension;
import dev.turnstile.test.redis.RestrictedRedisUser;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/** Where Turnstile's client connects: Boot's connection details when present, else spring.data.redis.* read by Turnstile. */
class TurnstileRedisConfigurationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** An application without Spring Boot's Redis auto-configuration (no spring-data-redis). */
    private final ApplicationContextRunner withoutBootRedis = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TurnstileAutoConfiguration.class));

    @Test
    void theLinesConnectionDetailsBecomeTurnstilesConnection() {
        new ApplicationContextRunner()
                .withConfiguration(BootLine.turnstile())
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port())
                .run(context -> {
                    assertThat(context).hasSingleBean(RedisConnection.class);
                    assertThat(context.getBean(RedisConnection.class).nodes())
                            .singleElement()
                            .hasToString("127.0.0.1:" + redis.server().port());
                    assertLocks(context.getBean(Turnstile.class), 0);
                });
    }

    @Test
    void withoutBootsRedisAutoConfigurationTurnstileReadsHostPortAndDatabase() {
        this.withoutBootRedis
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port(),
                        "spring.data.redis.database=2",
                        "spring.data.redis.client-name=orders",
                        "spring.data.redis.jedis.pool.max-active=3")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(RedisConnection.class);
                    UnifiedJedis client = context.getBean(UnifiedJedis.class);
                    assertThat(client.getClass().getSimpleName())
                            .isEqualTo(RedisClients.current() ? "RedisClient" : "JedisPooled");
                    assertThat(RedisClients.poolOf(client).getMaxTotal()).isEqualTo(3);
                    assertLocks(context.getBean(Turnstile.class), 2);
                });
    }

    @Test
    void withoutBootsRedisAutoConfigurationTurnstileReadsTheUrl() {
        this.withoutBootRedis
                .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:" + redis.server().port() + "/5")
                .run(context -> assertLocks(context.getBean(Turnstile.class), 5));
    }

    @Test
    void aMalformedNodeFailsTheStartNamingTheProperty() {
        this.withoutBootRedis
                .withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:7000,no-port-here")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining(
                                "spring.data.redis.cluster.nodes lists 'no-port-here'; write each node as host:port"));
    }

    @Test
    void aUrlWithoutAReadableHostFailsTheStartInsteadOfConnectingToLocalhost() {
        this.withoutBootRedis
                .withPropertyValues("spring.data.redis.url=redis://:p@ss@redis_cache:6379")
                .run(context -> {
                    assertThat(context)
                            .hasFailed()
                            .getFailure()
                            .rootCause()
                            .isInstanceOf(InvalidRedisSettingsException.class)
                            .hasMessageContaining("spring.data.redis.url")
                            .hasMessageContaining("has no host Turnstile can read");
                    org.springframework.boot.diagnostics.FailureAnalysis analysis =
                            new InvalidRedisSettingsFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("spring.data.redis.url");
                    assertThat(analysis.getAction()).contains("spring-boot-starter-data-redis");
                });
    }

    @Test
    void anSslBundleWithoutSpringBootsSslBundlesFailsTheStartNamingTheProperty() {
        this.withoutBootRedis
                .withPropertyValues(
                        "spring.data.redis.port=" + redis.server().port(), "spring.data.redis.ssl.bundle=client")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(InvalidRedisSettingsException.class)
                        .hasMessageContaining("spring.data.redis.ssl.bundle is 'client', but the application has no"
                                + " SslBundles bean"));
    }

    @Test
    void theRedisUserAndPasswordOfSpringDataRedisAreTheOnesTurnstileConnectsAs() {
        RestrictedRedisUser.createOn(redis.server());
        String[] properties = {
            "spring.data.redis.host=127.0.0.1",
            "spring.data.redis.port=" + redis.server().port(),
            "spring.data.redis.username=" + RestrictedRedisUser.NAME,
            "spring.data.redis.password=" + RestrictedRedisUser.PASSWORD
        };
        ContextConsumer<AssertableApplicationContext> locksAsTheRestrictedUser = context -> {
            try (Jedis admin = redis.server().connect()) {
                admin.aclLogReset();
                Turnstile turnstile = context.getBean(Turnstile.class);
                assertLocks(turnstile, 0);
                try (Permit permit = turnstile.semaphore("where", 1).acquire(Duration.ZERO, null)) {
                    assertThat(permit.isHeld()).isTrue();
                }
                assertThat(turnstile.diagnostics().health().up()).isTrue();
                assertThat(admin.clientList()).contains("user=" + RestrictedRedisUser.NAME);
                assertThat(admin.aclLog()).as("nothing was refused to the user").isEmpty();
            }
        };
        new ApplicationContextRunner()
                .withConfiguration(BootLine.turnstile())
                .withPropertyValues(properties)
                .run(locksAsTheRestrictedUser);
        this.withoutBootRedis.withPropertyValues(properties).run(locksAsTheRestrictedUser);
    }

    private static void assertLocks(Turnstile turnstile, int database) {
        try (Lease lease = turnstile.lock("where").acquire(Duration.ZERO, null);
                Jedis direct = new Jedis(redis.server().hostAndPort())) {
            direct.select(database);
            assertThat(direct.exists("turnstile:lock:{where}"))
                    .as("the lock is in database %d", database)
                    .isTrue();
            assertThat(lease.isHeld()).isTrue();
        }
    }
}
