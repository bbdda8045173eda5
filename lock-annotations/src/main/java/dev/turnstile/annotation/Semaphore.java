package dev.turnstile.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Lets at most {@link #limit()} invocations per key run at once, across every process of the
 * deployment, through a counting semaphore held in Redis. Fail-fast by default: the caller that
 * would exceed the limit is refused at once.
 *
 * <pre>{@code
 * @Semaphore(key = "account:#accountId", limit = 5)
 * public Quote callPartnerApi(String accountId) { ... }
 *
 * @Semaphore(key = "tenant:#tenant.id", limitExpression = "#{@tiers.concurrentCalls(#tenant)}")
 * public Report export(Tenant tenant) { ... }
 * }</pre>
 *
 * Keys are templates as described on {@link DistributedLock}, but name one semaphore. Durations
 * are strings ({@code "500ms"}, {@code "PT5S"}, {@code "${...}"}); every annotated method is
 * checked at startup.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Semaphore {

    /** Key template; empty: the method's qualified name. */
    String key() default "";

    /** Most invocations at once; give this or {@link #limitExpression()}. */
    int limit() default 0;

    /**
     * Limit as SpEL ({@code "#{@tiers.limitFor(#account)}"}, evaluated per call) or a placeholder
     * ({@code "${partner.api.limit:5}"}, resolved at startup); give this or {@link #limit()}.
     */
    String limitExpression() default "";

    /** How long to wait for a permit; empty: {@code turnstile.semaphore.wait-time} (0: fail fast). */
    String waitTime() default "";

    /** How long a permit lasts; empty: the default lease, renewed by the watchdog while the method runs. */
    String leaseTime() default "";

    /** What to do when no permit is free in time; ignored when {@link #fallback()} is set. */
    OnFailure onFailure() default OnFailure.THROW;

    /** Name of a method of the same bean to call instead; see {@link DistributedLock#fallback()}. */
    String fallback() default "";

    /** Whether waiters are served in arrival order (a newcomer never overtakes a waiter). */
    boolean fair() default false;

    /**
     * Whether the guard refuses calls it cannot admit or only observes them (see {@link Enforce}):
     * {@link Enforce#DEFAULT} follows {@code turnstile.enforce}; {@code turnstile.enforced-names}
     * and {@code turnstile.observed-names} win over this.
     */
    Enforce enforce() default Enforce.DEFAULT;
}
