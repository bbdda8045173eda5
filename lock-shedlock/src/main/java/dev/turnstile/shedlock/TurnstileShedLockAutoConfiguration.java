package dev.turnstile.shedlock;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.lock.Redlock;
import net.javacrumbs.shedlock.core.LockProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Provides ShedLock's {@code LockProvider} on Turnstile when ShedLock is on the classpath and the
 * application has no provider of its own: on the Redlock masters when Turnstile is configured for
 * Redlock, else on Turnstile's Redis.
 */
@AutoConfiguration(afterName = "dev.turnstile.spring.autoconfigure.TurnstileAutoConfiguration")
@ConditionalOnClass(LockProvider.class)
@ConditionalOnBean(Turnstile.class)
public class TurnstileShedLockAutoConfiguration {

    /** The provider; any {@code LockProvider} bean of the application replaces it. */
    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    public TurnstileLockProvider turnstileLockProvider(Turnstile turnstile, ObjectProvider<Redlock> redlock) {
        Redlock masters = redlock.getIfUnique();
        return new TurnstileLockProvider(masters != null ? masters : turnstile);
    }
}
