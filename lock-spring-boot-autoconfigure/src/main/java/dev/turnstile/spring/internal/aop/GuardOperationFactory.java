package dev.turnstile.spring.internal.aop;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.annotation.Enforce;
import dev.turnstile.annotation.OnFailure;
import dev.turnstile.annotation.Semaphore;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.spring.aop.InvalidGuardException;
import dev.turnstile.spring.internal.key.KeyExpressionEvaluator;
import dev.turnstile.spring.internal.key.KeyTemplate;
import dev.turnstile.spring.internal.key.MethodVariables;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.expression.Expression;
import org.springframework.util.ClassUtils;

/**
 * Reads {@code @DistributedLock} and {@code @Semaphore} into {@link GuardOperation}s, checking
 * everything that can be checked before a call: templates and expressions parse, durations
 * parse, limits are at least 1, the fallback exists with a compatible signature, SKIP is not used
 * on a primitive return type. Used through {@link GuardOperations}.
 */
public final class GuardOperationFactory {

    /** The longest lease or wait the core accepts. */
    private static final Duration MAX_DURATION = Duration.ofDays(365);

    private final PropertyResolver placeholders;
    private final KeyExpressionEvaluator evaluator;
    private final Duration lockWaitTime;
    private final Duration semaphoreWaitTime;
    private final Enforcement enforcement;
    private final CoroutineBridge coroutines;

    /**
     * Reads annotations with {@code placeholders} resolving {@code ${...}} in their attributes and
     * {@code evaluator} parsing their expressions; the wait times apply where an annotation gives
     * none ({@code turnstile.lock.wait-time}, {@code turnstile.semaphore.wait-time}), and {@code
     * enforcement} tells which guards enforce and which only observe; {@code classLoader} (the
     * application's) tells whether Kotlin coroutines can be guarded.
     */
    public GuardOperationFactory(
            PropertyResolver placeholders,
            KeyExpressionEvaluator evaluator,
            Duration lockWaitTime,
            Duration semaphoreWaitTime,
            Enforcement enforcement,
            @Nullable ClassLoader classLoader) {
        this.placeholders = placeholders;
        this.evaluator = evaluator;
        this.lockWaitTime = lockWaitTime;
        this.semaphoreWaitTime = semaphoreWaitTime;
        this.enforcement = enforcement;
        this.coroutines = new CoroutineBridge(classLoader);
    }

    /** Returns which guards enforce and which only observe. */
    Enforcement enforcement() {
        return this.enforcement;
    }

    /** Returns the evaluator that parses and caches this factory's expressions. */
    KeyExpressionEvaluator evaluator() {
        return this.evaluator;
    }

    /**
     * Returns the kinds of guard declared on {@code method} as implemented by {@code targetClass},
     * the lock first. Like the aspect's pointcut, this reads the implementation method only: an
     * annotation on an interface method is not applied (see {@link #interfaceOnlyAnnotations}).
     */
    static List<LeaseKind> kindsOf(Method method, Class<?> targetClass) {
        Method specific = specific(method, targetClass);
        List<LeaseKind> kinds = new ArrayList<>(2);
        if (AnnotatedElementUtils.isAnnotated(specific, DistributedLock.class)) {
            kinds.add(LeaseKind.LOCK);
        }
        if (AnnotatedElementUtils.isAnnotated(specific, Semaphore.class)) {
            kinds.add(LeaseKind.SEMAPHORE);
        }
        return kinds;
    }

    /**
     * Returns a problem for each interface method of {@code targetClass} that carries a guard
     * annotation its implementation lacks: such an annotation would silently do nothing.
     */
    static List<String> interfaceOnlyAnnotations(Class<?> targetClass) {
        List<String> problems = new ArrayList<>();
        for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(targetClass)) {
            for (Method declared : type.getMethods()) {
                boolean annotated = AnnotatedElementUtils.isAnnotated(declared, DistributedLock.class)
                        || AnnotatedElementUtils.isAnnotated(declared, Semaphore.class);
                if (annotated && kindsOf(declared, targetClass).isEmpty()) {
                    problems.add(describe(declared, targetClass) + ": the annotation on " + type.getSimpleName() + "."
                            + declared.getName() + " is not applied; annotate the implementing method");
                }
            }
        }
        return problems;
    }

    /**
     * Builds the operation of {@code kind} on {@code method} as called on {@code targetClass}.
     *
     * @throws InvalidGuardException listing every problem with the annotation
     */
    GuardOperation create(LeaseKind kind, Method method, Class<?> targetClass) {
        Method specific = specific(method, targetClass);
        AnnotatedElementKey elementKey = new AnnotatedElementKey(specific, targetClass);
        Site site = new Site(
                specific, targetClass, elementKey, describe(specific, targetClass), this.evaluator.variables(specific));
        List<String> problems = new ArrayList<>();
        GuardOperation operation = kind == LeaseKind.LOCK
                ? lock(AnnotatedElementUtils.getMergedAnnotation(specific, DistributedLock.class), site, problems)
                : semaphore(AnnotatedElementUtils.getMergedAnnotation(specific, Semaphore.class), site, problems);
        if (!problems.isEmpty()) {
            throw new InvalidGuardException(site.description(), problems);
        }
        return operation;
    }

    /** Where an annotation was found, and what its expressions may read. */
    private record Site(
            Method method,
            Class<?> targetClass,
            AnnotatedElementKey key,
            String description,
            MethodVariables variables) {}

    private GuardOperation lock(DistributedLock lock, Site site, List<String> problems) {
        List<String> templates =
                Arrays.stream(lock.key()).filter(t -> !t.isBlank()).toList();
        checkTemplates(site, templates, problems);
        String condition = lock.condition().isBlank() ? null : lock.condition();
        if (condition != null) {
            checkExpression(site, "condition", condition, problems);
        }
        // A held-on lock does not wait unless told to: a node that waited would get the lock when
        // the hold ends and run the method again. Only an explicit waitTime is checked against it.
        Duration wait = !lock.holdAtLeast().isBlank() && lock.waitTime().isBlank()
                ? Duration.ZERO
                : duration("waitTime", lock.waitTime(), this.lockWaitTime, false, problems);
        Duration lease = duration("leaseTime", lock.leaseTime(), null, true, problems);
        Duration hold = duration("holdAtLeast", lock.holdAtLeast(), null, true, problems);
        if (hold != null && lease != null && hold.compareTo(lease) > 0) {
            problems.add("'holdAtLeast' \"" + lock.holdAtLeast() + "\" is longer than 'leaseTime' \"" + lock.leaseTime()
                    + "\": a lock cannot be held longer than its lease; shorten holdAtLeast, lengthen"
                    + " leaseTime, or leave leaseTime empty for a watchdog-renewed lease");
        }
        if (hold != null && wait != null && wait.compareTo(hold) >= 0) {
            problems.add("'waitTime' \"" + lock.waitTime() + "\" is not shorter than 'holdAtLeast' \""
                    + lock.holdAtLeast()
                    + "\": a node that waits gets the lock when the hold ends and runs the method again;"
                    + " use waitTime = \"0s\" or leave waitTime empty (a lock with holdAtLeast does not wait"
                    + " by default)");
        }
        LockSpec spec = new LockSpec(hold, lock.holdAtLeastOnFailure(), condition, lock.confirmBeforeCommit());
        return operation(
                site, templates, wait, lease, lock.onFailure(), lock.fallback(), lock.enforce(), spec, problems);
    }

    private GuardOperation semaphore(Semaphore semaphore, Site site, List<String> problems) {
        List<String> templates = semaphore.key().isBlank() ? List.of() : List.of(semaphore.key());
        checkTemplates(site, templates, problems);
        int limit = semaphore.limit();
        String limitExpression = null;
        boolean hasExpression = !semaphore.limitExpression().isBlank();
        if (hasExpression && limit != 0) {
            problems.add("give 'limit' or 'limitExpression', not both");
        } else if (hasExpression) {
            String resolved = resolve("limitExpression", semaphore.limitExpression(), problems);
            if (resolved != null && resolved.contains("#")) {
                limitExpression = resolved;
                checkExpression(site, "limitExpression", resolved, problems);
            } else if (resolved != null) {
                limit = parseLimit(resolved, problems);
            }
        } else if (limit < 1) {
            problems.add("'limit' must be at least 1 but was " + limit + " (or give a 'limitExpression')");
        }
        Duration wait = duration("waitTime", semaphore.waitTime(), this.semaphoreWaitTime, false, problems);
        Duration lease = duration("leaseTime", semaphore.leaseTime(), null, true, problems);
        SemaphoreSpec spec = new SemaphoreSpec(limit, limitExpression, semaphore.fair());
        return operation(
                site,
                templates,
                wait,
                lease,
                semaphore.onFailure(),
                semaphore.fallback(),
                semaphore.enforce(),
                spec,
                problems);
    }

    /**
     * Builds the operation from what both annotations have, checking the fallback and SKIP, and
     * resolving whether it enforces.
     */
    private GuardOperation operation(
            Site site,
            List<String> templates,
            @Nullable Duration wait,
            @Nullable Duration lease,
            OnFailure onFailure,
            String fallbackName,
            Enforce enforce,
            GuardSpec spec,
            List<String> problems) {
        ReturnKind returnKind = ReturnKind.of(site.method());
        if (returnKind.kotlin()) {
            this.coroutines.check(site.method()).ifPresent(problems::add);
        }
        Fallback fallback = fallback(site.method(), site.targetClass(), fallbackName, problems);
        checkSkip(site.method(), onFailure, fallback, problems);
        String defaultKey = qualifiedName(site.method(), site.targetClass());
        String name = templates.isEmpty() ? defaultKey : String.join(",", templates);
        return new GuardOperation(
                site.method(),
                site.key(),
                site.description(),
                templates,
                defaultKey,
                wait,
                lease,
                onFailure,
                fallback,
                returnKind,
                this.enforcement.resolve(name, templates, enforce),
                spec);
    }

    private void checkTemplates(Site site, List<String> templates, List<String> problems) {
        for (String template : templates) {
            try {
                KeyTemplate parsed = this.evaluator.template(site.key(), template);
                problems.addAll(site.variables().problems("key template '" + template + "'", parsed.variablesRead()));
            } catch (RuntimeException e) {
                problems.add("key template '" + template + "' does not parse: " + e.getMessage());
            }
        }
    }

    private void checkExpression(Site site, String attribute, String expression, List<String> problems) {
        try {
            Expression parsed = this.evaluator.expression(site.key(), expression);
            problems.addAll(site.variables()
                    .problems(
                            "'" + attribute + "' expression '" + expression + "'",
                            KeyExpressionEvaluator.variablesRead(parsed)));
        } catch (RuntimeException e) {
            problems.add("'" + attribute + "' expression '" + expression + "' does not parse: " + e.getMessage());
        }
    }

    private @Nullable Duration duration(
            String attribute, String text, @Nullable Duration fallbackValue, boolean positive, List<String> problems) {
        if (text.isBlank()) {
            return fallbackValue;
        }
        String resolved = resolve(attribute, text, problems);
        if (resolved == null) {
            return fallbackValue;
        }
        try {
            Duration duration = DurationStyle.detectAndParse(resolved.trim());
            if (duration.isNegative() || (positive && duration.isZero())) {
                problems.add("'" + attribute + "' must be " + (positive ? "positive" : "zero or positive")
                        + " but was \"" + text + "\"");
            } else if (!duration.isZero() && duration.toMillis() < 1) {
                problems.add("'" + attribute + "' \"" + text + "\" is below 1ms, the resolution Redis counts"
                        + " time in; use 0 or at least 1ms");
            } else if (duration.compareTo(MAX_DURATION) > 0) {
                problems.add("'" + attribute + "' \"" + text + "\" is longer than 365 days; use a shorter one");
            }
            return duration;
        } catch (IllegalArgumentException e) {
            problems.add(
                    "'" + attribute + "' \"" + text + "\" is not a duration: use 500ms, 5s, PT5S or ${property:5s}");
            return fallbackValue;
        }
    }

    private @Nullable String resolve(String attribute, String text, List<String> problems) {
        try {
            return this.placeholders.resolveRequiredPlaceholders(text);
        } catch (IllegalArgumentException e) {
            problems.add("'" + attribute + "' \"" + text + "\" has an unresolvable placeholder: " + e.getMessage());
            return null;
        }
    }

    private static int parseLimit(String text, List<String> problems) {
        try {
            int limit = Integer.parseInt(text.trim());
            if (limit < 1) {
                problems.add("'limitExpression' must resolve to at least 1 but was " + limit);
            }
            return limit;
        } catch (NumberFormatException e) {
            problems.add("'limitExpression' \"" + text + "\" is neither a number nor a SpEL expression");
            return 0;
        }
    }

    private static @Nullable Fallback fallback(
            Method method, Class<?> targetClass, String name, List<String> problems) {
        if (name.isBlank()) {
            return null;
        }
        boolean suspends = KotlinDetector.isSuspendingFunction(method);
        Class<?>[] parameters = method.getParameterTypes();
        // A suspend function's own parameters, without the Continuation the compiler adds last.
        Class<?>[] values = suspends ? Arrays.copyOf(parameters, parameters.length - 1) : parameters;
        Class<?>[] withFailure = Arrays.copyOf(values, values.length + 1);
        withFailure[values.length] = Throwable.class;
        Optional<Method> found = findMethod(targetClass, name, values)
                .or(() -> findMethod(targetClass, name, withFailure))
                .or(() -> suspends ? findMethod(targetClass, name, parameters) : Optional.empty())
                .or(() -> suspends
                        ? findMethod(targetClass, name, continuing(withFailure, parameters[values.length]))
                        : Optional.empty());
        if (found.isEmpty()) {
            problems.add("fallback '" + name + "' not found: declare " + (suspends ? "fun or suspend fun " : "")
                    + name + "(" + typeNames(values) + ") on " + targetClass.getSimpleName()
                    + ", optionally with a last Throwable parameter");
            return null;
        }
        Method fallback = found.get();
        boolean fallbackSuspends = KotlinDetector.isSuspendingFunction(fallback);
        Class<?> expected = ReturnKind.kotlinReturnType(method);
        Class<?> actual = ReturnKind.kotlinReturnType(fallback);
        if (!suspends && !ClassUtils.isAssignable(expected, actual)) {
            problems.add("fallback '" + name + "' returns " + actual.getSimpleName() + ", which is not assignable to "
                    + expected.getSimpleName());
        }
        int valueCount = fallback.getParameterCount() - (fallbackSuspends ? 1 : 0);
        return new Fallback(fallback, valueCount == values.length + 1, suspends, fallbackSuspends);
    }

    /** The parameter types of a suspend function with {@code values}: {@code continuation} last. */
    private static Class<?>[] continuing(Class<?>[] values, Class<?> continuation) {
        Class<?>[] types = Arrays.copyOf(values, values.length + 1);
        types[values.length] = continuation;
        return types;
    }

    private static Optional<Method> findMethod(Class<?> type, String name, Class<?>[] parameters) {
        for (Class<?> current = type; current != null && current != Object.class; current = current.getSuperclass()) {
            try {
                return Optional.of(current.getDeclaredMethod(name, parameters));
            } catch (NoSuchMethodException e) {
                // look in the superclass
            }
        }
        return Optional.empty();
    }

    private static void checkSkip(
            Method method, OnFailure onFailure, @Nullable Fallback fallback, List<String> problems) {
        if (onFailure != OnFailure.SKIP || fallback != null) {
            return;
        }
        Class<?> returnType = method.getReturnType();
        if (returnType.isPrimitive() && returnType != void.class) {
            problems.add("onFailure = SKIP cannot produce a " + returnType.getName()
                    + ": return a wrapper type or Optional, or name a fallback");
        }
        if (ReturnKind.of(method) == ReturnKind.SUSPEND && KotlinDetector.isKotlinReflectPresent()) {
            MethodParameter result = new MethodParameter(method, -1);
            Class<?> type = result.getParameterType();
            boolean unit = type == void.class || type == Void.class || "kotlin.Unit".equals(type.getName());
            if (!unit && !result.isOptional()) {
                problems.add("onFailure = SKIP makes this suspend fun return null, but it returns the non-null "
                        + type.getSimpleName() + ": declare " + type.getSimpleName()
                        + "? or Unit, or name a fallback");
            }
        }
    }

    private static Method specific(Method method, Class<?> targetClass) {
        return BridgeMethodResolver.findBridgedMethod(ClassUtils.getMostSpecificMethod(method, targetClass));
    }

    /** {@code OrderService.buy(String, String)}; a Kotlin suspend function without its continuation. */
    static String describe(Method method, Class<?> targetClass) {
        Class<?>[] types = method.getParameterTypes();
        if (KotlinDetector.isSuspendingFunction(method)) {
            types = Arrays.copyOf(types, types.length - 1);
        }
        return ClassUtils.getUserClass(targetClass).getSimpleName() + "." + method.getName() + "(" + typeNames(types)
                + ")";
    }

    private static String qualifiedName(Method method, Class<?> targetClass) {
        return ClassUtils.getUserClass(targetClass).getName() + "." + method.getName();
    }

    /**
     * Returns whether a method is the compiler's own: a bridge, or the static {@code
     * name$suspendImpl} twin the Kotlin compiler emits for every open {@code suspend fun}, which
     * carries its annotations but is never called through a proxy. Neither is validated nor
     * guarded on its own.
     */
    static boolean compilerGenerated(Method method) {
        return method.isSynthetic() || method.isBridge();
    }

    private static String typeNames(Class<?>[] types) {
        return Arrays.stream(types).map(Class::getSimpleName).collect(Collectors.joining(", "));
    }
}
