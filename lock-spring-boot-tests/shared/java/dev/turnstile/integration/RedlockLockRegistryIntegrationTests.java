package dev.turnstile.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.spring.BootLine;
import dev.turnstile.test.redis.RedisServer;
import dev.turnstile.test.redis.RedisServerExtension;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * With {@code turnstile.redlock.nodes} set, the auto-configured {@code turnstileLockRegistry} locks
 * on the Redlock masters, not on {@code spring.data.redis}.
 */
class RedlockLockRegistryIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void theRegistryLocksOnTheRedlockMastersWhenRedlockIsConfigured() {
        List<RedisServer> masters =
                List.of(redis.startServer(b -> b), redis.startServer(b -> b), redis.startServer(b -> b));
        new ApplicationContextRunner()
                .withConfiguration(BootLine.turnstile())
                .withConfiguration(AutoConfigurations.of(TurnstileIntegrationAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port(),
                        "turnstile.redlock.nodes="
                                + String.join(
                                        ",",
                                        masters.stream().map(m -> m.uri().toString()).toList()))
                .run(context -> {
                    LockRegistry registry = context.getBean("turnstileLockRegistry", LockRegistry.class);
                    var lock = registry.obtain("orders");
                    lock.lock();
                    try {
                        assertThat(masters.stream()
                                        .map(m -> m.client().exists("turnstile:lock:{orders}"))
                                        .toList())
                                .as("held on the Redlock masters")
                                .containsExactly(true, true, true);
                        assertThat(redis.server().client().exists("turnstile:lock:{orders}"))
                                .as("not on spring.data.redis")
                                .isFalse();
                    } finally {
                        lock.unlock();
                    }
                    assertThat(masters.stream()
                                    .map(m -> m.client().exists("turnstile:lock:{orders}"))
                                    .toList())
                            .containsExactly(false, false, false);
                });
    }
}
