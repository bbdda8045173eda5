package dev.turnstile.spring.autoconfigure;

import dev.turnstile.spring.aop.GuardKind;
import dev.turnstile.spring.aop.GuardOperationFactory;
import dev.turnstile.spring.aop.InvalidGuardException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ReflectionUtils;

/**
 * Checks every {@code @DistributedLock} and {@code @Semaphore} method of every bean when the
 * context starts, and fails the start with one message that lists every bad method. The
 * expressions it parses stay cached, so the first call does no parsing.
 */
final class GuardedMethodValidator implements BeanPostProcessor, SmartInitializingSingleton {

    private final ObjectProvider<GuardOperationFactory> factory;
    private final Set<Class<?>> checked = ConcurrentHashMap.newKeySet();
    private final List<String> problems = new ArrayList<>();

    GuardedMethodValidator(ObjectProvider<GuardOperationFactory> factory) {
        this.factory = factory;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> targetClass = AopUtils.getTargetClass(bean);
        if (this.checked.add(targetClass)) {
            List<String> misplaced = GuardOperationFactory.interfaceOnlyAnnotations(targetClass);
            if (!misplaced.isEmpty()) {
                synchronized (this.problems) {
                    this.problems.addAll(misplaced);
                }
            }
            ReflectionUtils.doWithMethods(targetClass, method -> {
                for (GuardKind kind : GuardOperationFactory.kindsOf(method, targetClass)) {
                    try {
                        this.factory.getObject().create(kind, method, targetClass);
                    } catch (InvalidGuardException e) {
                        synchronized (this.problems) {
                            this.problems.add(e.getMessage());
                        }
                    }
                }
            });
        }
        return bean;
    }

    @Override
    public void afterSingletonsInstantiated() {
        synchronized (this.problems) {
            if (!this.problems.isEmpty()) {
                throw new TurnstileConfigurationException(List.copyOf(this.problems));
            }
        }
    }
}
