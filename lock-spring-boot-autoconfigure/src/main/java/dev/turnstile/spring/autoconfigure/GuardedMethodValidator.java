package dev.turnstile.spring.autoconfigure;

import dev.turnstile.spring.internal.aop.GuardOperations;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Checks every {@code @DistributedLock} and {@code @Semaphore} method of every bean when the
 * context starts, and fails the start with one message that lists every bad method. The
 * expressions it parses stay cached, so the first call does no parsing.
 *
 * <p>Beans created during the start are checked as they are created, by their target class. Beans
 * not created by then (lazy singletons, {@code spring.main.lazy-initialization=true}, prototypes,
 * the targets of scoped proxies, the products of factory beans) are checked by the class their
 * bean definition resolves to, without creating them. Where that is an interface or an abstract
 * class (a {@code @Bean} method declared to return an interface), the class is only known once
 * the bean exists: such a bean fails its creation, with the same message, if its class has a bad
 * method.
 */
final class GuardedMethodValidator implements BeanPostProcessor, SmartInitializingSingleton, BeanFactoryAware {

    private static final Logger log = LoggerFactory.getLogger(GuardedMethodValidator.class);

    private final ObjectProvider<GuardOperations> operations;
    /** Every class checked so far, with its problems (empty when it is fine). */
    private final Map<Class<?>, List<String>> checked = new ConcurrentHashMap<>();
    /** The problems found while the context starts, in the order found. */
    private final List<String> problems = new ArrayList<>();

    private @Nullable ConfigurableListableBeanFactory beanFactory;
    private volatile boolean started;

    GuardedMethodValidator(ObjectProvider<GuardOperations> operations) {
        this.operations = operations;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        if (beanFactory instanceof ConfigurableListableBeanFactory listable) {
            this.beanFactory = listable;
        }
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        List<String> found = check(AopUtils.getTargetClass(bean));
        if (this.started && !found.isEmpty()) {
            // Created after the start, and its class was not known before: refuse the bean.
            throw new TurnstileConfigurationException(found);
        }
        return bean;
    }

    @Override
    public void afterSingletonsInstantiated() {
        if (this.beanFactory != null) {
            for (String name : this.beanFactory.getBeanDefinitionNames()) {
                Class<?> type = notYetCreatedType(this.beanFactory, name);
                if (type != null) {
                    try {
                        check(type);
                    } catch (IllegalStateException | LinkageError e) {
                        // Its methods cannot be read now (a signature names a class that is
                        // missing): it is checked when it is created, if it ever is.
                    }
                }
            }
        }
        this.started = true;
        synchronized (this.problems) {
            if (!this.problems.isEmpty()) {
                throw new TurnstileConfigurationException(List.copyOf(this.problems));
            }
        }
        GuardOperations operations = this.operations.getIfAvailable();
        Set<String> observing = operations == null ? Set.of() : operations.observingGuards();
        if (!observing.isEmpty()) {
            log.info(
                    "{} guard(s) only observe: they refuse nothing, and count what they would refuse in"
                            + " turnstile.observed.refusals: {}",
                    observing.size(),
                    String.join(", ", observing));
        }
        Set<String> unmatched = operations == null ? Set.of() : operations.unmatchedNames();
        if (!unmatched.isEmpty()) {
            log.warn(
                    "turnstile.enforced-names or turnstile.observed-names lists {}, which no @DistributedLock or"
                            + " @Semaphore method is named: write the key template as in the annotation"
                            + " (account:#accountId), or the method's qualified name when it has no key,"
                            + " as the name tag of the turnstile.* metrics shows it",
                    unmatched);
        }
    }

    /**
     * The concrete class a bean not created yet will have, as its definition tells it without
     * creating anything (for a factory bean, its object type); null if the bean was created (it
     * was checked then) or its class cannot be known before it is created.
     */
    private static @Nullable Class<?> notYetCreatedType(ConfigurableListableBeanFactory beanFactory, String name) {
        try {
            if (beanFactory.getMergedBeanDefinition(name).isAbstract()) {
                return null;
            }
            if (beanFactory.containsSingleton(name) && !beanFactory.isFactoryBean(name)) {
                return null;
            }
            Class<?> type = beanFactory.getType(name, false);
            if (type == null
                    || type.isInterface()
                    || Modifier.isAbstract(type.getModifiers())
                    || Proxy.isProxyClass(type)) {
                return null;
            }
            return ClassUtils.getUserClass(type);
        } catch (BeansException | LinkageError e) {
            // Its type cannot be told now: it is checked when it is created.
            return null;
        }
    }

    /** Returns the problems of {@code targetClass}, finding them on its first check. */
    private List<String> check(Class<?> targetClass) {
        List<String> known = this.checked.get(targetClass);
        if (known != null) {
            return known;
        }
        // Asked only for a class with guards: the bean of operations may be what is being created.
        List<String> found = GuardOperations.declaresGuards(targetClass)
                ? this.operations.getObject().problems(targetClass)
                : List.of();
        known = this.checked.putIfAbsent(targetClass, found);
        if (known != null) {
            return known;
        }
        if (!found.isEmpty() && !this.started) {
            synchronized (this.problems) {
                this.problems.addAll(found);
            }
        }
        return found;
    }
}
