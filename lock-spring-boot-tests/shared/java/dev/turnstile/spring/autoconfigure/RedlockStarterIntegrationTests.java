package dev.turnstile.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.integration.TurnstileIntegrationAutoConfiguration;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.test.redis.RedisServer;
import dev.turnstile.test.redis.RedisServerExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import dev.turnstile.spring.BootLine;
import dev.turnstile.spring.actuate.TurnstileEndpoint;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.LockRegistry;

class RedlockStarterIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** Three masters of their own, and an application whose {@code turnstile.redlock.nodes} names them. */
    private static ApplicationContextRunner onThreeMasters(List<RedisServer> masters) {
        masters.addAll(List.of(redis.startServer(b -> b), redis.startServer(b -> b), redis.startServer(b -> b)));
        return new ApplicationContextRunner()
                .withConfiguration(BootLine.turnstile())
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port(),
                        "turnstile.redlock.nodes="
                                + String.join(
                                        ",",
                                        masters.stream()
                                                .map(m -> m.uri().toString())
                                                .toList()));
    }

    @Test
    void distributedLockUsesRedlockOverTheConfiguredMasters() {
        List<RedisServer> masters = new ArrayList<>();
        onThreeMasters(masters)
                .withUserConfiguration(Guarded.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(Redlock.class);
                    List<Boolean> heldOnMasters = context.getBean(Invoices.class)
                            .issue(
                                    "9",
                                    () -> masters.stream()
                                            .map(m -> m.client().exists("turnstile:lock:{invoice:9}"))
                                            .toList());
                    assertThat(heldOnMasters).containsExactly(true, true, true);
                    TurnstileEndpoint endpoint = context.getBean(TurnstileEndpoint.class);
                    List<Object> seen = context.getBean(Invoices.class).issue("10", () -> {
                        TurnstileEndpoint.Report report = endpoint.report();
                        List<String> locks = report.redis().locks().stream()
                                .map(TurnstileEndpoint.RedisLock::name)
                                .toList();
                        List<String> released = endpoint.forceRelease("invoice:10").get("released");
                        return List.of(report.redis().locksOn(), locks, released, masters.stream()
                                .map(m -> m.client().exists("turnstile:lock:{invoice:10}"))
                                .toList());
                    });
                    assertThat(seen.get(0)).isEqualTo("redlock over 3 masters");
                    assertThat(seen.get(1)).isEqualTo(List.of("invoice:10"));
                    assertThat(seen.get(2)).isEqualTo(List.of("invoice:10"));
                    assertThat(seen.get(3))
                            .as("force-released on every master")
                            .isEqualTo(List.of(false, false, false));
                    assertThat(redis.server().client().exists("turnstile:lock:{invoice:9}"))
                            .as("not on spring.data.redis")
                            .isFalse();
                    assertThat(masters)
                            .allSatisfy(m -> assertThat(m.client().exists("turnstile:lock:{invoice:9}"))
                                    .isFalse());
                });
    }

    @Test
    void theLockRegistryLocksOnTheRedlockMastersWhenRedlockIsConfigured() {
        List<RedisServer> masters = new ArrayList<>();
        onThreeMasters(masters)
                .withConfiguration(AutoConfigurations.of(TurnstileIntegrationAutoConfiguration.class))
                .run(context -> {
                    Lock lock = context.getBean("turnstileLockRegistry", LockRegistry.class).obtain("orders");
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

    @Test
    void fewerThanThreeMastersFailTheStartWithAClearMessage() {
        new ApplicationContextRunner()
                .withConfiguration(
                        BootLine.turnstile())
                .withPropertyValues(
                        "spring.data.redis.port=" + redis.server().port(),
                        "turnstile.redlock.nodes=redis://127.0.0.1:1,redis://127.0.0.1:2")
                .run(context -> assertThat(context.getStartupFailure())
                        .rootCause()
                        .hasMessageContaining("Redlock needs at least 3 independent masters"));
    }

    public static class Invoices {
        @DistributedLock(key = "invoice:#id")
        public <T> T issue(String id, Supplier<T> probe) {
            return probe.get();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Guarded {
        @Bean
        Invoices invoices() {
            return new Invoices();
        }
    }
}
