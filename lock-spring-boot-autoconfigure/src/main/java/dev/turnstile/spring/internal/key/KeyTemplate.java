package dev.turnstile.spring.internal.key;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;

/**
 * A parsed key template: literal parts and SpEL parts, in order. Immutable and thread-safe; built
 * once per (method, target class, template) by {@link KeyExpressionEvaluator}.
 */
public final class KeyTemplate {

    private final String source;
    private final List<Part> parts;

    KeyTemplate(String source, List<Part> parts) {
        this.source = source;
        this.parts = List.copyOf(parts);
    }

    /** Returns the template as written in the annotation. */
    public String source() {
        return this.source;
    }

    /** Returns the names of the {@code #variables} the template's expressions read. */
    public Set<String> variablesRead() {
        Set<String> names = new LinkedHashSet<>();
        for (Part part : this.parts) {
            if (part.expression() != null) {
                names.addAll(KeyExpressionEvaluator.variablesRead(part.expression()));
            }
        }
        return names;
    }

    /** Returns whether the template has no expression, so it renders to itself. */
    public boolean isLiteral() {
        return this.parts.stream().allMatch(part -> part.expression() == null);
    }

    /**
     * Renders the template for one call. A template that is one {@code #{...}} block returning a
     * collection or array renders to one key per element.
     *
     * @throws IllegalArgumentException if an expression yields null or a blank string, or the
     *     whole key is blank; the message names the template and {@code where}
     */
    public List<String> render(EvaluationContext context, String where) {
        if (this.parts.size() == 1 && this.parts.get(0).expression() != null) {
            Part only = this.parts.get(0);
            Object value = only.expression().getValue(context);
            if (value instanceof Collection<?>
                    || (value != null && value.getClass().isArray())) {
                List<String> keys = new ArrayList<>();
                for (Object element : elements(value)) {
                    keys.add(nonBlank(element, only, where));
                }
                if (keys.isEmpty()) {
                    throw new IllegalArgumentException("Key template '" + this.source + "' of " + where
                            + " yielded an empty collection; at least one key is needed");
                }
                return keys;
            }
            return List.of(nonBlank(value, only, where));
        }
        StringBuilder key = new StringBuilder();
        for (Part part : this.parts) {
            key.append(
                    part.expression() == null
                            ? part.text()
                            : nonBlank(part.expression().getValue(context), part, where));
        }
        if (key.toString().isBlank()) {
            throw new IllegalArgumentException(
                    "Key template '" + this.source + "' of " + where + " rendered a blank key");
        }
        return List.of(key.toString());
    }

    @Override
    public String toString() {
        return this.source;
    }

    private String nonBlank(@Nullable Object value, Part part, String where) {
        String text = value == null ? null : value.toString();
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("Key template '" + this.source + "' of " + where + ": '"
                    + part.text() + "' is " + (text == null ? "null" : "blank")
                    + ". A lock key needs a value; pass one, or fix the expression"
                    + " (parameter names need the -parameters compiler flag; #p0 and #a0 always work).");
        }
        return text;
    }

    private static List<Object> elements(Object value) {
        if (value instanceof Collection<?> collection) {
            return new ArrayList<>(collection);
        }
        List<Object> elements = new ArrayList<>();
        for (int i = 0; i < Array.getLength(value); i++) {
            elements.add(Array.get(value, i));
        }
        return elements;
    }

    /**
     * One part: literal text (expression null), or an expression with its source text.
     *
     * @param text the literal, or the expression as written
     * @param expression the parsed expression, or null for a literal
     */
    record Part(String text, @Nullable Expression expression) {}
}
