package dev.turnstile.spring.aop;

import dev.turnstile.annotation.OnFailure;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.context.expression.AnnotatedElementKey;

/**
 * Everything about one guarded method that does not change between calls, resolved once per
 * (method, target class) and validated at startup.
 *
 * @param kind lock or semaphore
 * @param method the most specific method (on the target class, bridge resolved)
 * @param elementKey the cache key of the method's expressions
 * @param description {@code OrderService.buy(String, String)}, for messages
 * @param keyTemplates the key templates; empty means the method's qualified name
 * @param defaultKey the method's qualified name
 * @param waitTime how long to wait
 * @param leaseTime the lease, or null for the watchdog-renewed default
 * @param holdAtLeast how long after the grant a lock stays taken at least, or null
 * @param holdAtLeastOnFailure whether {@code holdAtLeast} applies when the method fails
 * @param onFailure what to do when not acquired, if no fallback
 * @param fallback the fallback method, or null
 * @param fallbackTakesFailure whether the fallback takes the failure as its last argument
 * @param condition the condition expression, or null
 * @param limit the semaphore's fixed limit (0 when given by an expression, or for a lock)
 * @param limitExpression the per-call limit expression, or null
 * @param fair whether the semaphore is fair
 * @param returnKind how the method returns its result
 * @param confirmBeforeCommit whether the lock is confirmed in Redis before each commit under it
 */
record GuardOperation(
        GuardKind kind,
        Method method,
        AnnotatedElementKey elementKey,
        String description,
        List<String> keyTemplates,
        String defaultKey,
        Duration waitTime,
        @Nullable Duration leaseTime,
        @Nullable Duration holdAtLeast,
        boolean holdAtLeastOnFailure,
        OnFailure onFailure,
        @Nullable Method fallback,
        boolean fallbackTakesFailure,
        @Nullable String condition,
        int limit,
        @Nullable String limitExpression,
        boolean fair,
        ReturnKind returnKind,
        boolean confirmBeforeCommit) {

    /** How the guarded method ended, which decides whether its lock is held on after it. */
    enum Outcome {
        /** The method returned (or its result completed, or was cancelled after it started). */
        COMPLETED,
        /** The method threw (or its result failed). */
        FAILED,
        /** The method never ran (the subscriber left before the lease arrived). */
        NOT_RUN
    }

    /** Returns how long to hold the lock after the method ended so; zero: release at once. */
    Duration holdAfter(Outcome outcome) {
        if (this.holdAtLeast == null
                || outcome == Outcome.NOT_RUN
                || (outcome == Outcome.FAILED && !this.holdAtLeastOnFailure)) {
            return Duration.ZERO;
        }
        return this.holdAtLeast;
    }
}
