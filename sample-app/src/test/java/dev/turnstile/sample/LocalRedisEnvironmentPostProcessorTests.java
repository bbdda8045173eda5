package dev.turnstile.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.test.redis.RedisServer;
import java.net.ServerSocket;
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
    void aRedisAnsweringOnTheDefaultPortIsUsed() {
        try (RedisServer running = RedisServer.start()) {
            StandardEnvironment environment = environment("sample.local-redis.probe-port=" + running.port());
            this.processor.postProcessEnvironment(environment, new SpringApplication());
            assertThat(environment.getProperty("spring.data.redis.port")).isEqualTo(Integer.toString(running.port()));
        }
    }

    @Test
    void withNothingConfiguredAndNothingRunningALocalServerIsStarted() throws Exception {
        int unusedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            unusedPort = socket.getLocalPort();
        }
        StandardEnvironment environment = environment("sample.local-redis.probe-port=" + unusedPort);
        this.processor.postProcessEnvironment(environment, new SpringApplication());
        int port = environment.getProperty("spring.data.redis.port", Integer.class);
        assertThat(port).isNotEqualTo(unusedPort);
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
            assertThat(jedis.ping()).isEqualTo("PONG");
        }
    }

    private static StandardEnvironment environment(String... properties) {
        StandardEnvironment environment = new StandardEnvironment();
        TestPropertySourceUtils.addInlinedPropertiesToEnvironment(environment, properties);
        return environment;
    }
}
