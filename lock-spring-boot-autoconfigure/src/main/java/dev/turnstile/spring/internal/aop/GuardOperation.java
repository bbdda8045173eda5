package dev.turnstile.spring.internal.aop;

import dev.turnstile.annotation.Enforce;
import dev.turnstile.annotation.OnFailure;
import dev.turnstile.redis.LeaseKind;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.context.expression.AnnotatedElementKey;

/**
 * Everything about one guard of a method that does not change between calls, resolved once per
 * (method, target class) and validated at startup: what locks and semaphores share, and in {@link
 * #spec()} what belongs to one kind only.
 *
 * @param method the most specific method (on the target class, bridge resolved)
 * @param elementKey the cache key of the method's expressions
 * @param description {@code OrderService.buy(String, String)}, for messages
 * @param keyTemplates the key templates; empty means the method's qualified name
 * @param defaultKey the method's qualified name
 * @param waitTime how long to wait
 * @param leaseTime the lease, or null for the watchdog-renewed default
 * @param onFailure what to do when not acquired, if no fallback
 * @param fallback the method to call instead when not acquired, or null
 * @param returnKind how the method returns its result
 * @param enforce {@link Enforce#ENFORCE}: refuse what the guard cannot admit; {@link
 *     Enforce#OBSERVE}: run it anyway, counted and logged (never {@link Enforce#DEFAULT})
 * @param spec what only a lock or only a semaphore has
 */
record GuardOperation(
        Method method,
        AnnotatedElementKey elementKey,
        String description,
        List<String> keyTemplates,
        String defaultKey,
        Duration waitTime,
        @Nullable Duration leaseTime,
        OnFailure onFailure,
        @Nullable Fallback fallback,
        ReturnKind returnKind,
        Enforce enforce,
        GuardSpec spec) {

    /** How the guarded method ended, which decides whether its lock is held on after it. */
    enum Outcome {
        /** The method returned (or its result completed, or was cancelled after it started). */
        COMPLETED,
        /** The method threw (or its result failed). */
        FAILED,
        /** The method never ran (the subscriber left before the lease arrived). */
        NOT_RUN
    }

    /** Returns whether the guard refuses what it cannot admit, rather than only observing it. */
    boolean enforced() {
        return this.enforce == Enforce.ENFORCE;
    }

    /** Returns lock or semaphore. */
    LeaseKind kind() {
        return this.spec.kind();
    }

    /**
     * Returns the name the operation is known by in metrics, logs and configuration: its key
     * templates joined by commas, or the method's qualified name; never a resolved key.
     */
    String name() {
        return this.keyTemplates.isEmpty() ? this.defaultKey : String.join(",", this.keyTemplates);
    }

    /** Returns how long to hold the lock after the method ended so; zero: release at once. */
    Duration holdAfter(Outcome outcome) {
        return this.spec instanceof LockSpec lock ? lock.holdAfter(outcome) : Duration.ZERO;
    }
}
