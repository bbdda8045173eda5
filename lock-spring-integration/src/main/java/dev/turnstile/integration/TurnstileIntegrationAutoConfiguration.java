package dev.turnstile.integration;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.lock.Redlock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Provides {@code turnstileLockRegistry} when Spring Integration is on the classpath and the
 * application has no {@code LockRegistry} of its own: on the Redlock masters when Turnstile is
 * configured for Redlock, else on Turnstile's Redis.
 */
@AutoConfiguration(afterName = "dev.turnstile.spring.autoconfigure.TurnstileAutoConfiguration")
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnBean(Turnstile.class)
public class TurnstileIntegrationAutoConfiguration {

    /** The registry; any {@code LockRegistry} bean of the application replaces it. */
    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    public TurnstileLockRegistry turnstileLockRegistry(Turnstile turnstile, ObjectProvider<Redlock> redlock) {
        Redlock masters = redlock.getIfUnique();
        return new TurnstileLockRegistry(masters != null ? masters : turnstile);
    }
}
