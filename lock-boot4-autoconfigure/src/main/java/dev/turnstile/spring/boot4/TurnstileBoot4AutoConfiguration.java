package dev.turnstile.spring.boot4;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.spring.autoconfigure.redis.RedisConnection;
import dev.turnstile.spring.internal.actuate.BootHealthApi;
import dev.turnstile.spring.internal.actuate.TurnstileHealthSwitchedOff;
import dev.turnstile.spring.internal.redis.BootConnectionDetails;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
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
            BootConnectionDetails<DataRedisConnectionDetails.Node> boot = new BootConnectionDetails<>(
                    details.getUsername(),
                    details.getPassword(),
                    details.getSslBundle(),
                    environment,
                    node -> new HostAndPort(node.host(), node.port()));
            if (details.getCluster() != null) {
                return boot.cluster(details.getCluster().getNodes());
            }
            DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
            if (sentinel != null) {
                return boot.sentinel(
                        sentinel.getNodes(),
                        sentinel.getDatabase(),
                        sentinel.getMaster(),
                        sentinel.getUsername(),
                        sentinel.getPassword());
            }
            DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
            return boot.standalone(standalone.getHost(), standalone.getPort(), standalone.getDatabase());
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
            return HealthApi.BOOT4.turnstile(turnstile, redlock.getIfUnique());
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
            return HealthApi.BOOT4.switchedOff(environment);
        }
    }

    /** Boot 4's health classes; loaded only by the configurations above, when they are present. */
    private static final class HealthApi {

        static final BootHealthApi<
                        org.springframework.boot.health.contributor.HealthIndicator,
                        org.springframework.boot.health.contributor.Health,
                        org.springframework.boot.health.contributor.Health.Builder>
                BOOT4 = new BootHealthApi<>(
                        org.springframework.boot.health.contributor.Health::up,
                        org.springframework.boot.health.contributor.Health::down,
                        org.springframework.boot.health.contributor.Health.Builder::withDetails,
                        org.springframework.boot.health.contributor.Health.Builder::build,
                        health -> health::get);
    }
}
