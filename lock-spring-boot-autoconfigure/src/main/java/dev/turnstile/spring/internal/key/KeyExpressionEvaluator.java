package dev.turnstile.spring.internal.key;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionParser;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * Parses key templates and expressions once per (method, target class, text) and builds the
 * per-call evaluation context, after Spring's {@code CachedExpressionEvaluator}: {@code
 * #paramName}, {@code #p0}, {@code #a0} resolve lazily from the arguments; {@code @bean} resolves
 * through the bean factory. Only strings written in annotations are parsed, never argument values.
 * Thread-safe.
 */
public final class KeyExpressionEvaluator {

    private final KeyTemplateParser templateParser;
    private final ExpressionParser parser;
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
    private final Map<CacheKey, KeyTemplate> templates = new ConcurrentHashMap<>();
    private final Map<CacheKey, Expression> expressions = new ConcurrentHashMap<>();
    private final StandardEvaluationContext sharedContext = new StandardEvaluationContext();

    /** Creates an evaluator with Spring's standard SpEL parser. */
    public KeyExpressionEvaluator(@Nullable BeanFactory beanFactory) {
        this(new SpelExpressionParser(), beanFactory);
    }

    KeyExpressionEvaluator(ExpressionParser parser, @Nullable BeanFactory beanFactory) {
        this.parser = parser;
        this.templateParser = new KeyTemplateParser(parser);
        if (beanFactory != null) {
            this.sharedContext.setBeanResolver(new BeanFactoryResolver(beanFactory));
        }
    }

    /** Returns the parsed template, parsing it on first use for this method. */
    public KeyTemplate template(AnnotatedElementKey method, String template) {
        return this.templates.computeIfAbsent(
                new CacheKey(method, template), key -> this.templateParser.parse(template));
    }

    /** Returns the parsed expression (a condition or a limit), parsing it on first use. */
    public Expression expression(AnnotatedElementKey method, String expression) {
        return this.expressions.computeIfAbsent(
                new CacheKey(method, expression), key -> this.parser.parseExpression(stripBlock(expression)));
    }

    /** Returns the variables a call of {@code method} can read, for checking expressions at startup. */
    public MethodVariables variables(Method method) {
        return new MethodVariables(method, this.parameterNames.getParameterNames(method));
    }

    /** Returns the names of the {@code #variables} that {@code expression} reads, in order of appearance. */
    public static Set<String> variablesRead(Expression expression) {
        Set<String> names = new LinkedHashSet<>();
        if (expression instanceof SpelExpression spel) {
            collect(spel.getAST(), names);
        }
        return names;
    }

    private static void collect(SpelNode node, Set<String> names) {
        if (node instanceof VariableReference) {
            names.add(node.toStringAST().substring(1));
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            collect(node.getChild(i), names);
        }
    }

    /**
     * Builds the evaluation context of one call; cheap, arguments are bound lazily. A Kotlin
     * suspend function's {@code Continuation} is not one of its variables.
     */
    public EvaluationContext context(Method method, Object[] arguments, Object target, Class<?> targetClass) {
        int values = valueParameterCount(method);
        Object[] args = arguments.length > values ? Arrays.copyOf(arguments, values) : arguments;
        GuardExpressionRoot root = new GuardExpressionRoot(method, args, target, targetClass);
        // Given all arguments: Spring leaves out a suspend function's continuation itself.
        MethodBasedEvaluationContext context =
                new MethodBasedEvaluationContext(root, method, arguments, this.parameterNames);
        this.sharedContext.applyDelegatesTo(context);
        return context;
    }

    /**
     * Returns the parameters of {@code method} that a caller passes: all of them, but for a Kotlin
     * suspend function, whose compiled form takes the caller's {@code Continuation} last, one fewer.
     */
    static int valueParameterCount(Method method) {
        int count = method.getParameterCount();
        return KotlinDetector.isSuspendingFunction(method) ? count - 1 : count;
    }

    /** {@code #{expr}} and {@code expr} mean the same in a condition or limit expression. */
    private static String stripBlock(String expression) {
        String trimmed = expression.trim();
        if (trimmed.startsWith("#{") && trimmed.endsWith("}")) {
            return trimmed.substring(2, trimmed.length() - 1);
        }
        return trimmed;
    }

    private record CacheKey(AnnotatedElementKey method, String text) {}
}
