package dev.turnstile.spring.internal.key;

import java.util.ArrayList;
import java.util.List;
import org.springframework.expression.ExpressionParser;

/**
 * Parses the key template syntax documented on {@code @DistributedLock}: literal text, {@code
 * #{...}} SpEL blocks, the {@code #name.path} short form, and the escapes {@code \#} and {@code
 * \\}. Every expression is handed to the {@link ExpressionParser} once, here.
 */
final class KeyTemplateParser {

    private final ExpressionParser parser;

    KeyTemplateParser(ExpressionParser parser) {
        this.parser = parser;
    }

    /**
     * Parses {@code template}.
     *
     * @throws IllegalArgumentException for an unclosed or empty {@code #{} block, naming the
     *     position; SpEL syntax errors propagate as {@code ParseException}
     */
    KeyTemplate parse(String template) {
        List<KeyTemplate.Part> parts = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c == '\\'
                    && i + 1 < template.length()
                    && (template.charAt(i + 1) == '#' || template.charAt(i + 1) == '\\')) {
                literal.append(template.charAt(i + 1));
                i += 2;
            } else if (c == '#' && i + 1 < template.length() && template.charAt(i + 1) == '{') {
                int end = closingBrace(template, i + 2);
                String expression = template.substring(i + 2, end).trim();
                if (expression.isEmpty()) {
                    throw new IllegalArgumentException(
                            "Empty #{} block at position " + i + " of key template '" + template + "'");
                }
                flush(literal, parts);
                parts.add(new KeyTemplate.Part(expression, this.parser.parseExpression(expression)));
                i = end + 1;
            } else if (c == '#'
                    && i + 1 < template.length()
                    && Character.isJavaIdentifierStart(template.charAt(i + 1))) {
                int end = shortFormEnd(template, i + 1);
                String expression = template.substring(i, end);
                flush(literal, parts);
                parts.add(new KeyTemplate.Part(expression, this.parser.parseExpression(expression)));
                i = end;
            } else {
                literal.append(c);
                i++;
            }
        }
        flush(literal, parts);
        return new KeyTemplate(template, parts);
    }

    /** Returns the index of the '}' closing a block whose body starts at {@code from}, skipping nested braces and quotes. */
    private static int closingBrace(String template, int from) {
        int depth = 0;
        char quote = 0;
        for (int i = from; i < template.length(); i++) {
            char c = template.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '{') {
                depth++;
            } else if (c == '}') {
                if (depth == 0) {
                    return i;
                }
                depth--;
            }
        }
        throw new IllegalArgumentException(
                "Unclosed #{ at position " + (from - 2) + " of key template '" + template + "': add the closing }");
    }

    /** {@code #name(.name)*}: identifiers joined by dots, each dot followed by an identifier start. */
    private static int shortFormEnd(String template, int from) {
        int i = identifierEnd(template, from);
        while (i + 1 < template.length()
                && template.charAt(i) == '.'
                && Character.isJavaIdentifierStart(template.charAt(i + 1))) {
            i = identifierEnd(template, i + 1);
        }
        return i;
    }

    private static int identifierEnd(String template, int from) {
        int i = from + 1;
        while (i < template.length() && Character.isJavaIdentifierPart(template.charAt(i))) {
            i++;
        }
        return i;
    }

    private static void flush(StringBuilder literal, List<KeyTemplate.Part> parts) {
        if (literal.length() > 0) {
            parts.add(new KeyTemplate.Part(literal.toString(), null));
            literal.setLength(0);
        }
    }
}
