package dev.turnstile.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.Turnstile;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/** Turnstile on a Redis container wired by {@code @ServiceConnection}; skipped where no Docker engine runs. */
@Testcontainers(disabledWithoutDocker = true)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE)
class ServiceConnectionIntegrationTests {

    @Container
    @ServiceConnection(name = "redis")
    static final GenericContainer<?> redis = new GenericContainer<>("redis:7-alpine").withExposedPorts(6379);

    @Autowired
    Turnstile turnstile;

    @Test
    void locksWorkOnTheContainer() {
        try (Lease lease = this.turnstile.lock("container").acquire(Duration.ZERO, null)) {
            assertThat(lease.isHeld()).isTrue();
        }
    }
}
