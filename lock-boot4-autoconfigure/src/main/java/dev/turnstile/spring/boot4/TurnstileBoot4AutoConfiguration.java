package dev.turnstile.spring.boot4;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.spring.autoconfigure.redis.RedisConnection;
import dev.turnstile.spring.internal.actuate.TurnstileHealthCheck;
import dev.turnstile.spring.internal.actuate.TurnstileHealthSwitchedOff;
import dev.turnstile.spring.internal.redis.SpringDataRedisSettings;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import redis.clients.jedis.HostAndPort;

/**
 * Turnstile's Spring Boot 4 parts: its Redis connection from {@link DataRedisConnectionDetails}
 * (so {@code spring.data.redis.*}, SSL bundles, {@code @ServiceConnection} and Docker Compose apply
 * as Boot resolves them; a {@code rediss://} URL is TLS as in Boot's Jedis connection), and the
 * {@code turnstile} health indicator. Each part applies only when its Boot 4 module is on the
 * classpath; on Spring Boot 3.5 none of it loads.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
            "dev.turnstile.spring.autoconfigure.TurnstileAutoConfiguration"
        })
public final class TurnstileBoot4AutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails")
    static class ConnectionDetails {

        @Bean
        @ConditionalOnBean(DataRedisConnectionDetails.class)
        @ConditionalOnMissingBean
        RedisConnection turnstileRedisConnection(DataRedisConnectionDetails details, Environment environment) {
            SslBundle ssl = SpringDataRedisSettings.tls(details.getSslBundle(), environment);
            if (details.getCluster() != null) {
                return RedisConnection.cluster(
                        nodes(details.getCluster().getNodes()), details.getUsername(), details.getPassword(), ssl);
            }
            DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
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
                        ssl);
            }
            DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
            return RedisConnection.standalone(
                    new HostAndPort(standalone.getHost(), standalone.getPort()),
                    standalone.getDatabase(),
                    details.getUsername(),
                    details.getPassword(),
                    ssl);
        }

        private static List<HostAndPort> nodes(List<DataRedisConnectionDetails.Node> nodes) {
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
                "org.springframework.boot.health.contributor.HealthIndicator",
                "org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator"
            })
    @ConditionalOnBean(Turnstile.class)
    static class Health {

        @Bean
        @ConditionalOnEnabledHealthIndicator("turnstile")
        @ConditionalOnMissingBean(name = "turnstileHealthIndicator")
        org.springframework.boot.health.contributor.HealthIndicator turnstileHealthIndicator(
                Turnstile turnstile, ObjectProvider<Redlock> redlock) {
            TurnstileHealthCheck check = new TurnstileHealthCheck(turnstile, redlock.getIfUnique());
            return () -> check.report(
                            org.springframework.boot.health.contributor.Health::up,
                            org.springframework.boot.health.contributor.Health::down,
                            org.springframework.boot.health.contributor.Health.Builder::withDetails)
                    .build();
        }
    }

    /**
     * A {@code turnstile} contributor that is up and says what switched Turnstile's health off, when
     * a health group includes {@code turnstile} although it is off: see {@link
     * TurnstileHealthSwitchedOff}.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    @Conditional(TurnstileHealthSwitchedOff.class)
    static class SwitchedOffHealth {

        @Bean
        @ConditionalOnMissingBean(name = "turnstileHealthIndicator")
        org.springframework.boot.health.contributor.HealthIndicator turnstileHealthIndicator(Environment environment) {
            org.springframework.boot.health.contributor.Health health =
                    org.springframework.boot.health.contributor.Health.up()
                            .withDetails(TurnstileHealthSwitchedOff.details(environment))
                            .build();
            return () -> health;
        }
    }
}
