package dev.turnstile.spring.internal.aop;

import dev.turnstile.redis.LeaseKind;
import dev.turnstile.spring.aop.InvalidGuardException;
import dev.turnstile.spring.internal.key.KeyExpressionEvaluator;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.util.ReflectionUtils;

/**
 * The guard operations of annotated methods, read from {@code @DistributedLock} and {@code
 * @Semaphore} once per (method, target class) and cached (after Spring's {@code
 * CacheOperationSource}): what the startup check validates is what calls use, and the first call
 * parses nothing. Thread-safe.
 */
public final class GuardOperations {

    private final GuardOperationFactory factory;
    private final Enforcement enforcement;
    private final Map<AnnotatedElementKey, List<GuardOperation>> operations = new ConcurrentHashMap<>();
    /** The names and key templates of every guard built so far. */
    private final Set<String> known = ConcurrentHashMap.newKeySet();

    /** Keeps the operations {@code factory} reads, each method's once. */
    public GuardOperations(GuardOperationFactory factory) {
        this.factory = factory;
        this.enforcement = factory.enforcement();
    }

    /**
     * Returns the names listed in the {@link Enforcement} that match no guard built so far: after
     * the startup check, names that match nothing (a typo, or a guard of a bean whose class could
     * not be known before it is created).
     */
    public Set<String> unmatchedNames() {
        Set<String> unmatched = new TreeSet<>(this.enforcement.listedNames());
        unmatched.removeAll(this.known);
        return unmatched;
    }

    /**
     * Returns the guards built so far that only observe (they refuse nothing), each as {@code "lock
     * item:#id (ItemService.update(long))"}, sorted.
     */
    public Set<String> observingGuards() {
        Set<String> observing = new TreeSet<>();
        this.operations.values().stream()
                .flatMap(List::stream)
                .filter(operation -> !operation.enforced())
                .forEach(operation -> observing.add(
                        operation.kind().label() + " " + operation.name() + " (" + operation.description() + ")"));
        return observing;
    }

    /**
     * Returns whether {@code targetClass} or one of its interfaces has a method annotated with
     * {@code @DistributedLock} or {@code @Semaphore}: a check that needs no instance, for classes
     * seen before this one exists.
     */
    public static boolean declaresGuards(Class<?> targetClass) {
        if (!GuardOperationFactory.interfaceOnlyAnnotations(targetClass).isEmpty()) {
            return true;
        }
        boolean[] found = {false};
        ReflectionUtils.doWithMethods(
                targetClass,
                method -> found[0] = true,
                method -> !found[0]
                        && !GuardOperationFactory.compilerGenerated(method)
                        && !GuardOperationFactory.kindsOf(method, targetClass).isEmpty());
        return found[0];
    }

    /**
     * Checks every guarded method of {@code targetClass} and returns one message per misconfigured
     * guard (the method, then each problem with the attribute and the fix), and one per interface
     * method whose annotation is not applied; empty when all are fine.
     */
    public List<String> problems(Class<?> targetClass) {
        List<String> found = new ArrayList<>(GuardOperationFactory.interfaceOnlyAnnotations(targetClass));
        ReflectionUtils.doWithMethods(targetClass, method -> {
            if (GuardOperationFactory.compilerGenerated(method)) {
                return;
            }
            List<String> bad = new ArrayList<>();
            List<GuardOperation> built = build(method, targetClass, bad);
            if (bad.isEmpty() && !built.isEmpty()) {
                this.operations.putIfAbsent(new AnnotatedElementKey(method, targetClass), built);
            }
            found.addAll(bad);
        });
        return List.copyOf(found);
    }

    /**
     * Returns the guards of {@code method} as called on {@code targetClass}, the lock (outer) before
     * the semaphore, built on first use; empty when it has none.
     *
     * @throws InvalidGuardException if one is misconfigured (the startup check reports it first)
     */
    List<GuardOperation> of(Method method, Class<?> targetClass) {
        return this.operations.computeIfAbsent(
                new AnnotatedElementKey(method, targetClass), key -> build(method, targetClass, null));
    }

    /** Builds the guards of a method; a bad one is added to {@code bad}, or thrown when that is null. */
    private List<GuardOperation> build(Method method, Class<?> targetClass, @Nullable List<String> bad) {
        List<GuardOperation> built = new ArrayList<>(2);
        for (LeaseKind kind : GuardOperationFactory.kindsOf(method, targetClass)) {
            try {
                GuardOperation operation = this.factory.create(kind, method, targetClass);
                this.known.add(operation.name());
                this.known.addAll(operation.keyTemplates());
                built.add(operation);
            } catch (InvalidGuardException e) {
                if (bad == null) {
                    throw e;
                }
                bad.add(e.getMessage());
            }
        }
        return List.copyOf(built);
    }

    KeyExpressionEvaluator evaluator() {
        return this.factory.evaluator();
    }
}
