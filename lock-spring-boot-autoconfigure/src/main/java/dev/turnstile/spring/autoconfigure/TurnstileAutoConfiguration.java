package dev.turnstile.spring.autoconfigure;

import dev.turnstile.redis.LeaseListener;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.spring.internal.redis.TurnstileRedisConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import redis.clients.jedis.UnifiedJedis;

/**
 * Auto-configures Turnstile: a Jedis client (unless the application has its own {@code
 * UnifiedJedis}), the {@link Turnstile}, and the aspect behind {@code @DistributedLock} and
 * {@code @Semaphore}. {@code turnstile.enabled=false} switches all of it off.
 */
@AutoConfiguration(
        afterName = {
            // Spring Boot 4
            "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
            // Spring Boot 3.5
            "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration"
        })
@ConditionalOnClass({Turnstile.class, UnifiedJedis.class})
@ConditionalOnBooleanProperty(name = "turnstile.enabled", matchIfMissing = true)
@EnableConfigurationProperties(TurnstileProperties.class)
@Import({
    TurnstileRedisConfiguration.class,
    TurnstileAspectConfiguration.class,
    TurnstileTransactionConfiguration.class,
    TurnstileMetricsConfiguration.class,
    TurnstileActuatorConfiguration.class,
    TurnstileRedlockConfiguration.class,
    TurnstileWebConfiguration.class
})
public final class TurnstileAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    Turnstile turnstile(
            UnifiedJedis turnstileRedis, TurnstileProperties properties, ObjectProvider<LeaseListener> listeners) {
        checkBuilderValues(properties);
        Turnstile.Builder builder = Turnstile.builder(turnstileRedis)
                .keyPrefix(properties.getKeyPrefix())
                .defaultLease(properties.getDefaultLease())
                .fenceRetention(properties.getFenceRetention())
                .watchdogThreads(properties.getWatchdog().getThreads())
                .minReplicas(properties.getMinReplicas(), properties.getReplicaTimeout())
                .lockCohort(
                        properties.getLock().getCohort().getHolders(),
                        properties.getLock().getCohort().getMaxAge())
                .awakeWaiting(properties.getLock().getCohort().getAwakeWaiting());
        listeners.orderedStream().forEach(builder::listener);
        return builder.build();
    }

    /**
     * Refuses what the builder would refuse, naming the property instead of the builder's argument
     * (checked here, not in the setters, so that binding alone, as the documentation tests do, never fails).
     */
    private static void checkBuilderValues(TurnstileProperties properties) {
        int holders = properties.getLock().getCohort().getHolders();
        if (holders < 1 || holders > 1_000_000) {
            throw new IllegalArgumentException(
                    "'turnstile.lock.cohort.holders' must be between 1 (no local hand-off) and 1000000 but was "
                            + holders);
        }
        if (properties.getMinReplicas() < 0) {
            throw new IllegalArgumentException(
                    "'turnstile.min-replicas' must be zero (off) or positive but was " + properties.getMinReplicas());
        }
    }
}
