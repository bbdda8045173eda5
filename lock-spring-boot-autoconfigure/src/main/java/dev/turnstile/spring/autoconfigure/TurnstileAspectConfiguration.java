package dev.turnstile.spring.autoconfigure;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.spring.aop.GuardObserver;
import dev.turnstile.spring.internal.aop.CompositeGuardObserver;
import dev.turnstile.spring.internal.aop.Enforcement;
import dev.turnstile.spring.internal.aop.GuardAspect;
import dev.turnstile.spring.internal.aop.GuardOperationFactory;
import dev.turnstile.spring.internal.aop.GuardOperationSupport;
import dev.turnstile.spring.internal.aop.GuardOperations;
import dev.turnstile.spring.internal.aop.HeldGuards;
import dev.turnstile.spring.internal.aop.TransactionGuard;
import dev.turnstile.spring.internal.key.KeyExpressionEvaluator;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.EnableAspectJAutoProxy;
import org.springframework.core.env.Environment;

/** The aspect, its support and operations, and the startup validation of annotated methods. */
@Configuration(proxyBeanMethods = false)
@EnableAspectJAutoProxy
class TurnstileAspectConfiguration {

    @Bean
    static GuardedMethodValidator turnstileGuardedMethodValidator(ObjectProvider<GuardOperations> operations) {
        return new GuardedMethodValidator(operations);
    }

    @Bean
    @ConditionalOnMissingBean
    GuardOperations turnstileGuardOperations(
            Environment environment, BeanFactory beanFactory, TurnstileProperties properties) {
        return new GuardOperations(new GuardOperationFactory(
                environment,
                new KeyExpressionEvaluator(beanFactory),
                properties.getLock().getWaitTime(),
                properties.getSemaphore().getWaitTime(),
                new Enforcement(properties.isEnforce(), properties.getEnforcedNames(), properties.getObservedNames()),
                beanFactory instanceof ConfigurableBeanFactory configurable
                        ? configurable.getBeanClassLoader()
                        : TurnstileAspectConfiguration.class.getClassLoader()));
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
            GuardOperations operations,
            TurnstileProperties properties,
            ObjectProvider<TransactionGuard> transactions,
            ObjectProvider<GuardObserver> observers,
            HeldGuards held,
            ObjectProvider<Redlock> redlock) {
        return new GuardOperationSupport(
                turnstile,
                operations,
                properties.getLock().getOnLeaseLost(),
                transactions.getIfAvailable(),
                new CompositeGuardObserver(observers.orderedStream().toList()),
                held,
                redlock.getIfAvailable() != null ? redlock.getObject() : turnstile);
    }

    @Bean
    @ConditionalOnMissingBean
    GuardAspect turnstileGuardAspect(GuardOperationSupport support, TurnstileProperties properties) {
        return new GuardAspect(support, properties.getAspectOrder());
    }
}
