package dev.turnstile.spring.autoconfigure;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.spring.aop.CompositeGuardObserver;
import dev.turnstile.spring.aop.GuardObserver;
import dev.turnstile.spring.aop.GuardOperationFactory;
import dev.turnstile.spring.aop.GuardOperationSupport;
import dev.turnstile.spring.aop.HeldGuards;
import dev.turnstile.spring.aop.LockAspect;
import dev.turnstile.spring.aop.SemaphoreAspect;
import dev.turnstile.spring.aop.TransactionGuard;
import dev.turnstile.spring.key.KeyExpressionEvaluator;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.EnableAspectJAutoProxy;
import org.springframework.core.env.Environment;

/** The aspects, their support, and the startup validation of annotated methods. */
@Configuration(proxyBeanMethods = false)
@EnableAspectJAutoProxy
class TurnstileAspectConfiguration {

    @Bean
    static GuardedMethodValidator turnstileGuardedMethodValidator(ObjectProvider<GuardOperationFactory> factory) {
        return new GuardedMethodValidator(factory);
    }

    @Bean
    @ConditionalOnMissingBean
    GuardOperationFactory turnstileGuardOperationFactory(
            Environment environment, BeanFactory beanFactory, TurnstileProperties properties) {
        return new GuardOperationFactory(
                environment,
                new KeyExpressionEvaluator(beanFactory),
                properties.getLock().getWaitTime(),
                properties.getSemaphore().getWaitTime());
    }

    @Bean
    @ConditionalOnMissingBean
    HeldGuards turnstileHeldGuards() {
        return new HeldGuards();
    }

    @Bean
    @ConditionalOnMissingBean
    GuardOperationSupport turnstileGuardOperationSupport(
            Turnstile turnstile,
            GuardOperationFactory factory,
            TurnstileProperties properties,
            ObjectProvider<TransactionGuard> transactions,
            ObjectProvider<GuardObserver> observers,
            HeldGuards held,
            ObjectProvider<Redlock> redlock) {
        return new GuardOperationSupport(
                turnstile,
                factory,
                properties.getLock().getOnLeaseLost(),
                transactions.getIfAvailable(),
                new CompositeGuardObserver(observers.orderedStream().toList()),
                held,
                redlock.getIfAvailable() != null ? redlock.getObject() : turnstile,
                properties.getDefaultLease());
    }

    @Bean
    @ConditionalOnMissingBean
    LockAspect turnstileLockAspect(GuardOperationSupport support, TurnstileProperties properties) {
        return new LockAspect(support, properties.getAspectOrder());
    }

    @Bean
    @ConditionalOnMissingBean
    SemaphoreAspect turnstileSemaphoreAspect(GuardOperationSupport support, TurnstileProperties properties) {
        return new SemaphoreAspect(support, properties.getAspectOrder());
    }
}
