package dev.turnstile.spring.internal.aop;

import dev.turnstile.annotation.Enforce;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which guards refuse the calls they cannot admit and which only observe them. A guard is known by
 * its name: its key template ({@code account:#accountId}), a multi-key lock's templates joined by
 * commas (or any one of them), or the method's qualified name when it has no key; the same name as
 * in the metrics. The names listed here win over the annotation's {@code enforce}, which wins over
 * the default.
 */
public final class Enforcement {

    /** Every guard enforces, unless its annotation says {@link Enforce#OBSERVE}. */
    public static final Enforcement DEFAULT = new Enforcement(true, List.of(), List.of());

    private final boolean byDefault;
    private final Set<String> enforced;
    private final Set<String> observed;

    /**
     * @param byDefault whether a guard enforces when neither a list nor its annotation says
     * @param enforced names of guards that enforce
     * @param observed names of guards that only observe
     * @throws IllegalArgumentException if a name is in both lists
     */
    public Enforcement(boolean byDefault, Collection<String> enforced, Collection<String> observed) {
        this.byDefault = byDefault;
        this.enforced = trimmed(enforced);
        this.observed = trimmed(observed);
        Set<String> both = new TreeSet<>(this.enforced);
        both.retainAll(this.observed);
        if (!both.isEmpty()) {
            throw new IllegalArgumentException("turnstile.enforced-names and turnstile.observed-names both list " + both
                    + "; list each name in one of them");
        }
    }

    /** Returns every name listed, to check them against the guards that exist. */
    public Set<String> listedNames() {
        Set<String> names = new TreeSet<>(this.enforced);
        names.addAll(this.observed);
        return names;
    }

    /**
     * Returns how the guard named {@code name} with key templates {@code templates} and the
     * annotation's {@code annotated} acts: {@link Enforce#ENFORCE} or {@link Enforce#OBSERVE}, never
     * {@link Enforce#DEFAULT}. A guard matched by both lists (through two of its templates) enforces.
     */
    public Enforce resolve(String name, List<String> templates, Enforce annotated) {
        if (matches(this.enforced, name, templates)) {
            return Enforce.ENFORCE;
        }
        if (matches(this.observed, name, templates)) {
            return Enforce.OBSERVE;
        }
        if (annotated != Enforce.DEFAULT) {
            return annotated;
        }
        return this.byDefault ? Enforce.ENFORCE : Enforce.OBSERVE;
    }

    /** Returns whether {@code names} lists the guard by its name or by one of its templates. */
    public static boolean matches(Collection<String> names, String name, List<String> templates) {
        return names.contains(name) || templates.stream().anyMatch(names::contains);
    }

    private static Set<String> trimmed(Collection<String> names) {
        Set<String> set = new TreeSet<>();
        names.stream().map(String::trim).filter(n -> !n.isEmpty()).forEach(set::add);
        return set;
    }
}
