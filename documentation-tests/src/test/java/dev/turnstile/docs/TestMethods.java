package dev.turnstile.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads a Java or Kotlin test source for a method's declarations and the annotations on each. */
final class TestMethods {

    private static final Pattern TEST_ANNOTATION =
            Pattern.compile("@(?:[\\w.]+\\.)?(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\\b");

    private TestMethods() {}

    /**
     * Returns, for each declaration of {@code method} in {@code source} ({@code void method(} in Java,
     * {@code fun method(} in Kotlin), the text before it back to the end of the previous member or
     * statement: its annotations and modifiers (text inside parentheses, such as an annotation's
     * arguments, does not end it). Empty when there is no such method.
     */
    static List<String> annotationsOf(String source, String method) {
        List<String> declarations = new ArrayList<>();
        Matcher declaration = Pattern.compile("\\b(?:void|fun)\\s+" + Pattern.quote(method) + "\\s*\\(")
                .matcher(source);
        while (declaration.find()) {
            int depth = 0;
            int from = declaration.start();
            while (from > 0) {
                char c = source.charAt(from - 1);
                if (c == ')') {
                    depth++;
                } else if (c == '(') {
                    depth--;
                } else if (depth == 0 && (c == ';' || c == '{' || c == '}')) {
                    break;
                }
                from--;
            }
            declarations.add(source.substring(from, declaration.start()));
        }
        return declarations;
    }

    /** Returns whether the annotations before a declaration make it a JUnit test. */
    static boolean marksATest(String annotations) {
        return TEST_ANNOTATION.matcher(annotations).find();
    }
}
