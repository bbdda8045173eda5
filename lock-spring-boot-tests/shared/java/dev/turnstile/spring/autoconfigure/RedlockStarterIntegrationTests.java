package dev.turnstile.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.test.redis.RedisServer;
import dev.turnstile.test.redis.RedisServerExtension;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import dev.turnstile.spring.BootLine;
import dev.turnstile.spring.actuate.TurnstileEndpoint;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class RedlockStarterIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void distributedLockUsesRedlockOverTheConfiguredMasters() {
        List<RedisServer> masters =
                List.of(redis.startServer(b -> b), redis.startServer(b -> b), redis.startServer(b -> b));
        new ApplicationContextRunner()
                .withConfiguration(
                        BootLine.turnstile())
                .withUserConfiguration(Guarded.class)
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port(),
                        "turnstile.redlock.nodes="
                                + String.join(
                                        ",",
                                        masters.stream()
                                                .map(m -> m.uri().toString())
                                                .toList()))
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
