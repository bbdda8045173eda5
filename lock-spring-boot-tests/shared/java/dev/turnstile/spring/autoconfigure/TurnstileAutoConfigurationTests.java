package dev.turnstile.spring.autoconfigure;

import redis.clients.jedis.DefaultJedisClientConfig;
import dev.turnstile.test.redis.RedisClients;
import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.spring.internal.aop.GuardAspect;
import dev.turnstile.spring.internal.aop.GuardOperationSupport;
import dev.turnstile.spring.internal.aop.GuardOperations;
import dev.turnstile.spring.internal.aop.TransactionGuard;
import dev.turnstile.spring.internal.redis.TurnstileRedisConfiguration;
import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.RedisServerExtension;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import dev.turnstile.spring.BootLine;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.UnifiedJedis;

class TurnstileAutoConfigurationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        BootLine.turnstile())
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port());
    }

    @Test
    void turnstileIsBuiltFromSpringDataRedisConnectionDetails() {
        runner().withPropertyValues("turnstile.key-prefix=shop").run(context -> {
            assertThat(context)
                    .hasSingleBean(Turnstile.class)
                    .hasSingleBean(UnifiedJedis.class)
                    .hasSingleBean(GuardAspect.class)
                    .hasSingleBean(GuardOperations.class)
                    .hasSingleBean(GuardOperationSupport.class);
            context.getBean(Turnstile.class)
                    .lock("probe")
                    .acquire(java.time.Duration.ZERO, null)
                    .release();
            assertThat(redis.server().commandCounts()).containsKey("evalsha");
            assertThat(context.getBean(Turnstile.class).diagnostics().keyPrefix())
                    .isEqualTo("shop");
        });
    }

    /**
     * What a new application that has only {@code spring-boot-starter} and the Turnstile starter
     * meets: the libraries the starter keeps optional (transactions, Reactor, Spring Data, metrics,
     * actuator, web) are not on its classpath at all (hiding them from one class loader, as the test
     * below does, lets classes that need them load anyway).
     */
    @Test
    void anApplicationWithNoneOfTheOptionalLibrariesStartsAndLocks() {
        try (ChildJvm application = ChildJvm.startWithout(
                List.of(
                        "spring-tx-",
                        "spring-data-",
                        "spring-boot-data-",
                        "spring-boot-starter-data-",
                        "spring-boot-transaction-",
                        "spring-boot-persistence-",
                        "spring-integration-",
                        "shedlock-",
                        "reactor-",
                        "reactive-streams-",
                        "micrometer-core-",
                        "spring-boot-actuator",
                        "spring-boot-micrometer-",
                        "spring-boot-health-",
                        "spring-web",
                        "spring-boot-web",
                        "spring-boot-servlet-",
                        "spring-boot-tomcat-",
                        "tomcat-embed-"),
                WithoutOptionalLibrariesApplication.class,
                Integer.toString(redis.server().port()))) {
            String locked = application.awaitLineStartingWith("locked ", Duration.ofSeconds(60));
            assertThat(application.lines())
                    .contains(
                            "spring-tx absent",
                            "reactor absent",
                            "spring-data-redis absent",
                            "micrometer absent",
                            "actuator absent",
                            "spring-web absent");
            assertThat(locked).startsWith("locked 1 2 token ");
            assertThat(Long.parseLong(locked.substring("locked 1 2 token ".length())))
                    .isPositive();
        }
    }

    @Test
    void conditionsLeaveTheTransactionGuardOutWhenSpringTxIsHidden() {
        runner().withClassLoader(
                        new FilteredClassLoader("reactor.", "org.reactivestreams.", "org.springframework.transaction."))
                .withUserConfiguration(Guarded.class)
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(TransactionGuard.class);
                    assertThat(context.getBean(Counter.class).next("k")).isEqualTo(1);
                });
    }

    @Test
    void disabledTurnstileCreatesNothing() {
        runner().withPropertyValues("turnstile.enabled=false")
                .run(context -> assertThat(context)
                        .doesNotHaveBean(Turnstile.class)
                        .doesNotHaveBean(GuardAspect.class)
                        .doesNotHaveBean(GuardOperations.class));
    }

    @Test
    void applicationsOwnJedisClientWins() {
        runner().withUserConfiguration(OwnClient.class).run(context -> {
            assertThat(context).hasSingleBean(UnifiedJedis.class);
            assertThat(context.getBean(UnifiedJedis.class)).isSameAs(context.getBean("ownClient"));
            // Turnstile works through that client: what it locks, the client sees.
            try (var lease = context.getBean(Turnstile.class).lock("own-client").acquire(java.time.Duration.ZERO, null)) {
                assertThat(context.getBean(UnifiedJedis.class).exists("turnstile:lock:{own-client}")).isTrue();
            }
        });
    }

    @Test
    void applicationsOwnTurnstileWins() {
        runner().withUserConfiguration(OwnClient.class, OwnTurnstile.class).run(context -> {
            assertThat(context).hasSingleBean(Turnstile.class);
            assertThat(context.getBean(Turnstile.class)).isSameAs(context.getBean("ownTurnstile"));
        });
    }

    @Test
    void everyUserFacingBeanBacksOffForTheApplicationsOwn() {
        List<String> unconditional = new ArrayList<>();
        List<Class<?>> configurations = new ArrayList<>(List.of(
                TurnstileAutoConfiguration.class,
                TurnstileAspectConfiguration.class,
                TurnstileRedisConfiguration.class,
                TurnstileTransactionConfiguration.class,
                TurnstileMetricsConfiguration.class,
                TurnstileActuatorConfiguration.Endpoints.class,
                TurnstileRedlockConfiguration.class));
        configurations.addAll(BootLine.lineConfigurations());
        assertThat(configurations).hasSizeGreaterThan(8);
        for (Class<?> configuration : configurations) {
            for (Method method : configuration.getDeclaredMethods()) {
                boolean bean = method.isAnnotationPresent(Bean.class);
                // Static @Bean methods are infrastructure (post-processors), not user-facing.
                boolean infrastructure = Modifier.isStatic(method.getModifiers())
                        && !method.getReturnType().getSimpleName().equals("TransactionGuard");
                if (bean && !infrastructure && !method.isAnnotationPresent(ConditionalOnMissingBean.class)) {
                    unconditional.add(configuration.getSimpleName() + "." + method.getName());
                }
            }
        }
        assertThat(unconditional).isEmpty();
    }

    public static class Counter {
        private int count;

        @DistributedLock(key = "counter:#key")
        public int next(String key) {
            return ++this.count;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Guarded {
        @Bean
        Counter counter() {
            return new Counter();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnClient {
        @Bean(destroyMethod = "close")
        UnifiedJedis ownClient() {
            return RedisClients.standalone(redis.server().hostAndPort(), DefaultJedisClientConfig.builder().build());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnTurnstile {
        @Bean(destroyMethod = "close")
        Turnstile ownTurnstile(UnifiedJedis client) {
            return Turnstile.builder(client).keyPrefix("own").build();
        }
    }
}
