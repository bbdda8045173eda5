package dev.turnstile.spring.boot3;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.spring.autoconfigure.redis.RedisConnection;
import dev.turnstile.spring.internal.actuate.TurnstileHealthCheck;
import dev.turnstile.spring.internal.actuate.TurnstileHealthSwitchedOff;
import dev.turnstile.spring.internal.redis.SpringDataRedisSettings;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import redis.clients.jedis.HostAndPort;

/**
 * Turnstile's Spring Boot 3.5 parts: its Redis connection from {@link RedisConnectionDetails}
 * (so {@code spring.data.redis.*}, SSL bundles, {@code @ServiceConnection} and Docker Compose apply
 * as Boot resolves them; a {@code rediss://} URL is TLS as in Boot's Jedis connection), and the
 * {@code turnstile} health indicator. Each part applies only when its Boot 3 class is on the
 * classpath; on Spring Boot 4 none of it loads.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
            "dev.turnstile.spring.autoconfigure.TurnstileAutoConfiguration"
        })
public final class TurnstileBoot3AutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails")
    static class ConnectionDetails {

        @Bean
        @ConditionalOnBean(RedisConnectionDetails.class)
        @ConditionalOnMissingBean
        RedisConnection turnstileRedisConnection(RedisConnectionDetails details, Environment environment) {
            RedisConnectionDetails.Cluster cluster = details.getCluster();
            if (cluster != null) {
                return RedisConnection.cluster(
                        nodes(cluster.getNodes()),
                        details.getUsername(),
                        details.getPassword(),
                        SpringDataRedisSettings.tls(cluster.getSslBundle(), environment));
            }
            RedisConnectionDetails.Sentinel sentinel = details.getSentinel();
            if (sentinel != null) {
                return new RedisConnection(
                        RedisConnection.Mode.SENTINEL,
                        nodes(sentinel.getNodes()),
                        sentinel.getDatabase(),
                        details.getUsername(),
                        details.getPassword(),
                        sentinel.getMaster(),
                        sentinel.getUsername(),
                        sentinel.getPassword(),
                        SpringDataRedisSettings.tls(sentinel.getSslBundle(), environment));
            }
            RedisConnectionDetails.Standalone standalone = details.getStandalone();
            return RedisConnection.standalone(
                    new HostAndPort(standalone.getHost(), standalone.getPort()),
                    standalone.getDatabase(),
                    details.getUsername(),
                    details.getPassword(),
                    SpringDataRedisSettings.tls(standalone.getSslBundle(), environment));
        }

        private static List<HostAndPort> nodes(List<RedisConnectionDetails.Node> nodes) {
            return nodes.stream()
                    .map(node -> new HostAndPort(node.host(), node.port()))
                    .toList();
        }
    }

    /**
     * The {@code turnstile} health contributor, unless {@code
     * management.health.turnstile.enabled=false} (or {@code management.health.defaults.enabled=false}
     * without it being switched on).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
            name = {
                "org.springframework.boot.actuate.health.HealthIndicator",
                "org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator"
            })
    @ConditionalOnBean(Turnstile.class)
    static class Health {

        @Bean
        @ConditionalOnEnabledHealthIndicator("turnstile")
        @ConditionalOnMissingBean(name = "turnstileHealthIndicator")
        org.springframework.boot.actuate.health.HealthIndicator turnstileHealthIndicator(
                Turnstile turnstile, ObjectProvider<Redlock> redlock) {
            TurnstileHealthCheck check = new TurnstileHealthCheck(turnstile, redlock.getIfUnique());
            return () -> check.report(
                            org.springframework.boot.actuate.health.Health::up,
                            org.springframework.boot.actuate.health.Health::down,
                            org.springframework.boot.actuate.health.Health.Builder::withDetails)
                    .build();
        }
    }

    /**
     * A {@code turnstile} contributor that is up and says what switched Turnstile's health off, when
     * a health group includes {@code turnstile} although it is off: see {@link
     * TurnstileHealthSwitchedOff}.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
    @Conditional(TurnstileHealthSwitchedOff.class)
    static class SwitchedOffHealth {

        @Bean
        @ConditionalOnMissingBean(name = "turnstileHealthIndicator")
        org.springframework.boot.actuate.health.HealthIndicator turnstileHealthIndicator(Environment environment) {
            org.springframework.boot.actuate.health.Health health = org.springframework.boot.actuate.health.Health.up()
                    .withDetails(TurnstileHealthSwitchedOff.details(environment))
                    .build();
            return () -> health;
        }
    }
}
