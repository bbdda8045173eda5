package dev.turnstile.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.test.redis.RedisServer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogs;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.test.context.support.TestPropertySourceUtils;
import redis.clients.jedis.Jedis;

class LocalRedisEnvironmentPostProcessorTests {

    private final LocalRedisEnvironmentPostProcessor processor =
            new LocalRedisEnvironmentPostProcessor(new DeferredLogs());

    @Test
    void configuredRedisIsUsedAsIs() {
        StandardEnvironment environment = environment("spring.data.redis.host=redis.example");
        this.processor.postProcessEnvironment(environment, new SpringApplication());
        assertThat(environment.getProperty("spring.data.redis.host")).isEqualTo("redis.example");
        assertThat(environment.getPropertySources().contains("localRedis")).isFalse();
    }

    @Test
    void withNothingConfiguredItStartsItsOwnServerEvenWhenOneAnswersOnTheDefaultPort() {
        try (RedisServer someoneElses = RedisServer.start()) {
            StandardEnvironment environment = environment();
            this.processor.postProcessEnvironment(environment, new SpringApplication());
            int port = environment.getProperty("spring.data.redis.port", Integer.class);
            assertThat(port).isNotEqualTo(6379).isNotEqualTo(someoneElses.port());
            assertThat(environment.getProperty(LocalRedisEnvironmentPostProcessor.STARTED, Boolean.class))
                    .isTrue();
            try (Jedis own = new Jedis("127.0.0.1", port)) {
                assertThat(own.ping()).isEqualTo("PONG");
                assertThat(own.dbSize()).isZero();
            }
        }
    }

    @Test
    void switchedOffItLeavesTheEnvironmentAlone() {
        StandardEnvironment environment = environment("sample.local-redis.enabled=false");
        this.processor.postProcessEnvironment(environment, new SpringApplication());
        assertThat(environment.getPropertySources().contains("localRedis")).isFalse();
        assertThat(environment.containsProperty("spring.data.redis.port")).isFalse();
    }

    private static StandardEnvironment environment(String... properties) {
        StandardEnvironment environment = new StandardEnvironment();
        TestPropertySourceUtils.addInlinedPropertiesToEnvironment(environment, properties);
        return environment;
    }
}
