package dev.turnstile.spring.internal.key;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * The {@code #variables} a guarded method's expressions can read: its parameters by name (when the
 * class was compiled with {@code -parameters}), {@code #p0}/{@code #a0} by position, {@code #root}
 * and {@code #this}. Checks, at startup, that an expression reads only those, so a typo fails the
 * start instead of every call. Immutable.
 */
public final class MethodVariables {

    private static final Set<String> ALWAYS = Set.of("root", "this");

    private final int count;
    private final String @Nullable [] names;

    MethodVariables(Method method, String @Nullable [] names) {
        // A Kotlin suspend function's last parameter is the compiler's Continuation, not the user's.
        this.count = KeyExpressionEvaluator.valueParameterCount(method);
        this.names = names != null && names.length > this.count ? Arrays.copyOf(names, this.count) : names;
    }

    /**
     * Returns one problem for each variable in {@code used} that a call cannot resolve, naming
     * {@code what} (e.g. {@code key template 'order:#ordrId'}), the unknown name, the parameters,
     * and the nearest parameter name; empty when all resolve.
     */
    public List<String> problems(String what, Collection<String> used) {
        List<String> problems = new ArrayList<>();
        for (String variable : used) {
            if (!resolves(variable)) {
                problems.add(problem(what, variable));
            }
        }
        return problems;
    }

    private boolean resolves(String variable) {
        if (ALWAYS.contains(variable) || position(variable) >= 0) {
            return true;
        }
        if (this.names == null) {
            return false;
        }
        for (String name : this.names) {
            if (name.equals(variable)) {
                return true;
            }
        }
        return false;
    }

    /** The index of {@code #p3}/{@code #a3}, or -1 when {@code variable} is not a valid position. */
    private int position(String variable) {
        if (variable.length() < 2 || (variable.charAt(0) != 'p' && variable.charAt(0) != 'a')) {
            return -1;
        }
        String digits = variable.substring(1);
        boolean leadingZero = digits.length() > 1 && digits.charAt(0) == '0';
        if (!digits.chars().allMatch(Character::isDigit) || digits.length() > 3 || leadingZero) {
            return -1;
        }
        int index = Integer.parseInt(digits);
        return index < this.count ? index : -1;
    }

    private String problem(String what, String variable) {
        if (this.names == null) {
            return what + " reads #" + variable + ", but its class"
                    + " was compiled without -parameters, so its parameter names are unknown at run time;"
                    + " use " + positions() + ", or compile with -parameters"
                    + " (Spring Boot's Maven and Gradle plugins set it)";
        }
        StringBuilder problem = new StringBuilder(what + " reads #" + variable + ", which is not a parameter;");
        String nearest = variable.matches("[pa][0-9]+") ? null : nearest(variable);
        if (nearest != null) {
            problem.append(" did you mean #").append(nearest).append("?");
        }
        problem.append(" Its parameters are ")
                .append(
                        this.count == 0
                                ? "none"
                                : IntStream.range(0, this.count)
                                        .mapToObj(i -> "#" + this.names[i] + " (#p" + i + ")")
                                        .collect(Collectors.joining(", ")));
        return problem.toString();
    }

    private String positions() {
        return this.count == 0
                ? "no parameter variables (the method has none)"
                : IntStream.range(0, this.count).mapToObj(i -> "#p" + i).collect(Collectors.joining(", "));
    }

    private @Nullable String nearest(String variable) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String name : this.names) {
            int distance = distance(variable.toLowerCase(), name.toLowerCase());
            if (distance < bestDistance) {
                best = name;
                bestDistance = distance;
            }
        }
        return bestDistance <= Math.max(2, variable.length() / 3) ? best : null;
    }

    /** Levenshtein distance. */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
