package dev.turnstile.spring.aop;

import java.util.List;

/** One annotated method is misconfigured; carries every problem found on it. */
public final class InvalidGuardException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    /** {@code method} (its description) has {@code problems}, each one sentence. */
    public InvalidGuardException(String method, List<String> problems) {
        super(method + ": " + String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    /** Returns the problems, each one sentence naming the attribute and the fix. */
    public List<String> problems() {
        return this.problems;
    }
}
