package dev.turnstile.spring.autoconfigure;

import dev.turnstile.spring.internal.aop.TransactionGuard;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.transaction.ConfigurableTransactionManager;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * With spring-tx present: releases wait for the surrounding transaction, and the {@link
 * TransactionGuard} listens to every transaction manager so that, with {@code
 * turnstile.lock.on-lease-lost=rollback}, a transaction begun inside a guarded method is refused
 * at commit when the lease was lost.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(TransactionSynchronizationManager.class)
class TurnstileTransactionConfiguration {

    @Bean
    @ConditionalOnMissingBean
    static TransactionGuard turnstileTransactionGuard(Environment environment) {
        // Bound from the environment directly: a static bean must not depend on the properties bean.
        String mode = environment.getProperty("turnstile.lock.on-lease-lost", "LOG");
        return new TransactionGuard(
                dev.turnstile.spring.aop.OnLeaseLost.valueOf(mode.trim().toUpperCase(java.util.Locale.ROOT)));
    }

    @Bean
    static BeanPostProcessor turnstileTransactionListenerRegistrar(ObjectProvider<TransactionGuard> guard) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof ConfigurableTransactionManager manager) {
                    guard.ifAvailable(transactionGuard -> manager.addListener(new BeginListener(transactionGuard)));
                }
                return bean;
            }
        };
    }

    /** Tells the guard of each transaction that begins; spring-tx's listener type stays here. */
    private record BeginListener(TransactionGuard guard) implements TransactionExecutionListener {

        @Override
        public void afterBegin(TransactionExecution transaction, @Nullable Throwable beginFailure) {
            if (beginFailure == null) {
                this.guard.transactionBegan();
            }
        }
    }
}
