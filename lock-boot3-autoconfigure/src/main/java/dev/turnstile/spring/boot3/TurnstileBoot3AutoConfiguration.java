package dev.turnstile.spring.boot3;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.spring.autoconfigure.redis.RedisConnection;
import dev.turnstile.spring.internal.actuate.BootHealthApi;
import dev.turnstile.spring.internal.actuate.TurnstileHealthSwitchedOff;
import dev.turnstile.spring.internal.redis.BootConnectionDetails;
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
            BootConnectionDetails<RedisConnectionDetails.Node> boot = new BootConnectionDetails<>(
                    details.getUsername(),
                    details.getPassword(),
                    null,
                    environment,
                    node -> new HostAndPort(node.host(), node.port()));
            RedisConnectionDetails.Cluster cluster = details.getCluster();
            if (cluster != null) {
                return boot.withSsl(cluster.getSslBundle()).cluster(cluster.getNodes());
            }
            RedisConnectionDetails.Sentinel sentinel = details.getSentinel();
            if (sentinel != null) {
                return boot.withSsl(sentinel.getSslBundle())
                        .sentinel(
                                sentinel.getNodes(),
                                sentinel.getDatabase(),
                                sentinel.getMaster(),
                                sentinel.getUsername(),
                                sentinel.getPassword());
            }
            RedisConnectionDetails.Standalone standalone = details.getStandalone();
            return boot.withSsl(standalone.getSslBundle())
                    .standalone(standalone.getHost(), standalone.getPort(), standalone.getDatabase());
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
            return HealthApi.BOOT3.turnstile(turnstile, redlock.getIfUnique());
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
            return HealthApi.BOOT3.switchedOff(environment);
        }
    }

    /** Boot 3's health classes; loaded only by the configurations above, when they are present. */
    private static final class HealthApi {

        static final BootHealthApi<
                        org.springframework.boot.actuate.health.HealthIndicator,
                        org.springframework.boot.actuate.health.Health,
                        org.springframework.boot.actuate.health.Health.Builder>
                BOOT3 = new BootHealthApi<>(
                        org.springframework.boot.actuate.health.Health::up,
                        org.springframework.boot.actuate.health.Health::down,
                        org.springframework.boot.actuate.health.Health.Builder::withDetails,
                        org.springframework.boot.actuate.health.Health.Builder::build,
                        health -> health::get);
    }
}
