package dev.turnstile.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method under a distributed lock held in Redis: at most one invocation per key at a
 * time, across every process of the deployment.
 *
 * <pre>{@code
 * @DistributedLock(key = "item:#itemId", waitTime = "2s")
 * public void buy(String buyerId, String itemId) { ... }
 *
 * @DistributedLock(key = {"account:#from.id", "account:#to.id"})   // both or neither, no deadlock
 * public void transfer(Account from, Account to, long cents) { ... }
 * }</pre>
 *
 * <h2>Keys</h2>
 *
 * A key is a template: literal text with expressions in it.
 *
 * <ul>
 *   <li>{@code #{ expression }} is a SpEL expression, evaluated per call with the method's
 *       arguments as {@code #name}, {@code #p0} or {@code #a0}, {@code #root.method}, {@code
 *       #root.args}, {@code #root.target}, and beans as {@code @beanName};
 *   <li>the short form {@code #name} or {@code #name.property.property} inside literal text means
 *       {@code #{#name.property.property}}: it ends at the first character that is not part of a
 *       Java identifier or a {@code .} followed by one ({@code "item:#itemId"} ≡ {@code
 *       "item:#{#itemId}"}; {@code "#order.id."} ends with a literal dot);
 *   <li>{@code \#} is a literal {@code #} and {@code \\} a literal backslash;
 *   <li>a template that is a single {@code #{...}} block may return a collection or array: one key
 *       per element, locked all-or-nothing.
 * </ul>
 *
 * Several keys, given as several templates or a collection, form one multi-key lock acquired in
 * sorted order. No key at all means the method's fully qualified name. An expression that yields
 * null or a blank string fails the call with an {@code IllegalArgumentException} naming the
 * template, the method and the expression; the method does not run.
 *
 * <h2>Times</h2>
 *
 * Durations are strings: {@code "500ms"}, {@code "5s"}, {@code "PT5S"}, or a placeholder such as
 * {@code "${app.lock.wait:5s}"}. Every annotated method is checked when the application starts;
 * a bad key, duration or fallback fails the start with a message naming each bad method.
 *
 * <h2>Reentrancy and transactions</h2>
 *
 * A nested call on the same thread with a key the thread already holds joins the outer lease (no
 * second acquire, no deadlock). A nested call on several keys, some held by outer calls, joins
 * those and takes the others, released when it ends, if they sort after every key the thread
 * holds (the order in which multi-key locks take their keys, so no deadlock); otherwise it fails
 * at once with an {@code IllegalStateException} naming the method and the keys. The lock is taken outside {@code @Transactional} on the same
 * method, so it is released only after the transaction has committed; when a transaction is
 * already active around the call, the release waits for that transaction to complete.
 *
 * <h2>Scheduled jobs</h2>
 *
 * {@code @Scheduled} fires on every node. To run a job once per period across the cluster, skip
 * at once when the lock is taken, and keep the lock for most of the period, so that a node whose
 * clock is behind, firing after a fast job has finished, still finds it taken:
 *
 * <pre>{@code
 * @Scheduled(cron = "0 0 2 * * *")
 * @DistributedLock(key = "report:daily", holdAtLeast = "30s", waitTime = "0s", onFailure = OnFailure.SKIP)
 * public void dailyReport() { ... }
 * }</pre>
 *
 * A node that waited instead would get the lock when the hold ends and run the job again: with
 * {@code holdAtLeast}, an empty {@code waitTime} means {@code "0s"} (not {@code
 * turnstile.lock.wait-time}), and a given one must be shorter than the hold (checked at startup).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

    /** Key templates; several form one all-or-nothing lock. Empty: the method's qualified name. */
    String[] key() default {};

    /**
     * How long to wait for the lock; empty: {@code turnstile.lock.wait-time} (5s by default), or
     * {@code "0s"} when {@link #holdAtLeast()} is given.
     */
    String waitTime() default "";

    /**
     * How long the lease lasts; empty: the default lease, renewed by the watchdog while the method
     * runs. A given lease time is not renewed: the lock expires after it even if the method still
     * runs (and the loss is reported).
     */
    String leaseTime() default "";

    /**
     * How long after the acquire the lock stays taken at least, even when the method returns
     * sooner; empty: released as soon as the method returns. When the method ends earlier, the
     * lock is not renewed again; its time to live in Redis is set to what is left of this time,
     * counted by the Redis server's clock from the grant, and it then expires by itself. With a
     * fixed {@link #leaseTime()}, it must not be longer than the lease. With it, an empty {@link
     * #waitTime()} means {@code "0s"}, and a given one must be shorter than it.
     */
    String holdAtLeast() default "";

    /**
     * Whether {@link #holdAtLeast()} also applies when the method throws (or its future or
     * publisher fails); false releases at once on failure, so another node may retry the job.
     */
    boolean holdAtLeastOnFailure() default true;

    /** What to do when the lock is not acquired in time; ignored when {@link #fallback()} is set. */
    OnFailure onFailure() default OnFailure.THROW;

    /**
     * Name of a method of the same bean to call instead when the lock is not acquired: same
     * parameters (optionally followed by one {@code Throwable} parameter that receives the
     * failure), and a return type assignable to this method's.
     */
    String fallback() default "";

    /** SpEL condition; when it evaluates to false the method runs without the lock. */
    String condition() default "";

    /**
     * Whether the lock is confirmed in Redis before each commit of a transaction that runs under
     * it (one begun inside the method, or one surrounding the call): an owner-checked renewal, one
     * Redis round trip per commit. When the lock was lost meanwhile (an operator force-released it,
     * or it expired and another node took it), or Redis cannot be reached, the commit is refused:
     * the transaction rolls back with a {@code LockLostException} (a {@code
     * RedisUnavailableException} when unreachable). False: the commit is checked against the
     * lease's local state only ({@code turnstile.lock.on-lease-lost=rollback}), which cannot see a
     * force-release before the next renewal. Needs spring-tx.
     */
    boolean confirmBeforeCommit() default false;

    /**
     * Whether the guard refuses calls it cannot admit or only observes them (see {@link Enforce}):
     * {@link Enforce#DEFAULT} follows {@code turnstile.enforce}; {@code turnstile.enforced-names}
     * and {@code turnstile.observed-names} win over this.
     */
    Enforce enforce() default Enforce.DEFAULT;
}
