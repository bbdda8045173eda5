package dev.turnstile.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a failed start caused by misconfigured {@code @DistributedLock} or {@code @Semaphore} methods. */
final class TurnstileFailureAnalyzer extends AbstractFailureAnalyzer<TurnstileConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, TurnstileConfigurationException cause) {
        return new FailureAnalysis(
                cause.getMessage(),
                "Fix each annotation listed above: keys are templates such as \"item:#itemId\" or \"#{...}\""
                        + " that read only the method's parameters (#name, or #p0/#a0 by position),"
                        + " durations look like 500ms, 5s, PT5S or ${property:5s}, a semaphore needs limit >= 1 or a"
                        + " limitExpression, a fallback needs the same parameters (plus an optional Throwable) and a"
                        + " compatible return type, onFailure = SKIP needs a non-primitive return type, and"
                        + " holdAtLeast must be no longer than a fixed leaseTime and longer than waitTime.",
                cause);
    }
}
