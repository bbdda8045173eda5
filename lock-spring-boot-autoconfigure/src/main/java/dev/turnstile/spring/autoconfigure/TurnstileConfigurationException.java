package dev.turnstile.spring.autoconfigure;

import java.util.List;

/** Annotated methods are misconfigured; the application must not start. Lists every bad method. */
public final class TurnstileConfigurationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    TurnstileConfigurationException(List<String> problems) {
        super(problems.size() + " @DistributedLock/@Semaphore method(s) are misconfigured:\n - "
                + String.join("\n - ", problems));
        this.problems = List.copyOf(problems);
    }

    /** Returns one line per bad method: the method, then each problem. */
    public List<String> problems() {
        return this.problems;
    }
}
