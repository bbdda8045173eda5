package dev.turnstile.spring.internal.aop;

import dev.turnstile.annotation.OnFailure;
import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LeaseLostEvent;
import dev.turnstile.redis.LockFactory;
import dev.turnstile.redis.LockLostException;
import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.TurnstileException;
import dev.turnstile.spring.LockContext;
import dev.turnstile.spring.aop.GuardObserver;
import dev.turnstile.spring.aop.OnLeaseLost;
import dev.turnstile.spring.aop.Refusal;
import dev.turnstile.spring.internal.key.KeyExpressionEvaluator;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.expression.EvaluationContext;

/**
 * What the aspect delegates to, holding no AOP types (after Spring's {@code CacheAspectSupport}):
 * finds the method's cached {@link GuardOperation}, resolves its keys for the call, acquires,
 * invokes the method the way its return type needs, and releases; or applies the failure policy.
 * A guard that only observes ({@code turnstile.enforce=false}, {@code Enforce.OBSERVE}) runs the
 * method when it would refuse (busy, full, Redis unavailable), counting and logging the refusal.
 * Thread-safe.
 */
public final class GuardOperationSupport {

    private static final Logger log = LoggerFactory.getLogger("dev.turnstile.spring.aop.GuardOperationSupport");

    private final Turnstile turnstile;
    private final KeyExpressionEvaluator evaluator;
    private final GuardOperations operations;
    private final OnLeaseLost onLeaseLost;
    private final @Nullable TransactionGuard transactions;
    private final GuardObserver observer;
    private final HeldGuards held;
    private final LockFactory locks;
    private final ObservedRefusals refusals = new ObservedRefusals(System::nanoTime);
    private final LostLeaseLog lostLeases;

    /**
     * @param transactions ties leases to transactions; null when spring-tx is absent
     * @param observer hears acquisitions and releases (metrics, tracing)
     * @param held where this node's held guards are tracked
     * @param locks where locks are taken (semaphores always live in {@code turnstile}'s Redis)
     */
    public GuardOperationSupport(
            Turnstile turnstile,
            GuardOperations operations,
            OnLeaseLost onLeaseLost,
            @Nullable TransactionGuard transactions,
            GuardObserver observer,
            HeldGuards held,
            LockFactory locks) {
        this.turnstile = turnstile;
        this.evaluator = operations.evaluator();
        this.operations = operations;
        this.onLeaseLost = onLeaseLost;
        this.transactions = transactions;
        this.observer = observer;
        this.held = held;
        this.locks = locks;
        this.lostLeases = new LostLeaseLog(onLeaseLost);
    }

    /**
     * Runs {@code invoker} under the guards declared on {@code method}: a lock outside a semaphore
     * when it has both, and as it is when it has none.
     *
     * @throws Throwable what the method throws, or the acquisition failure (THROW)
     */
    public @Nullable Object invoke(Method method, Object target, Object[] args, Invoker invoker) throws Throwable {
        Class<?> targetClass = AopProxyUtils.ultimateTargetClass(target);
        return invoke(this.operations.of(method, targetClass), 0, target, targetClass, args, invoker);
    }

    private @Nullable Object invoke(
            List<GuardOperation> operations,
            int index,
            Object target,
            Class<?> targetClass,
            Object[] args,
            Invoker invoker)
            throws Throwable {
        if (index == operations.size()) {
            return invoker.invoke();
        }
        Invoker next = () -> invoke(operations, index + 1, target, targetClass, args, invoker);
        return invoke(operations.get(index), target, targetClass, args, next);
    }

    private @Nullable Object invoke(
            GuardOperation operation, Object target, Class<?> targetClass, Object[] args, Invoker invoker)
            throws Throwable {
        EvaluationContext context = this.evaluator.context(operation.method(), args, target, targetClass);
        if (operation.spec() instanceof LockSpec lock
                && lock.condition() != null
                && !Boolean.TRUE.equals(this.evaluator
                        .expression(operation.elementKey(), lock.condition())
                        .getValue(context, Boolean.class))) {
            return invoker.invoke();
        }
        Guard guard = new Guard(operation, keys(operation, context), limit(operation, context));
        return switch (operation.returnKind()) {
            case SYNC -> invokeSync(guard, target, args, invoker);
            case COMPLETION_STAGE -> invokeAsync(guard, target, args, invoker);
            case MONO, FLUX ->
                ReactiveGuards.guard(
                        operation.returnKind(),
                        () -> acquireOrObserve(guard),
                        (lease, outcome) -> release(guard, lease, outcome),
                        invoker,
                        () -> operation.enforced()
                                ? reactiveFailure(guard, target, args)
                                : ReactiveGuards.call(invoker));
            case SUSPEND, FLOW -> invokeCoroutine(guard, target, args, invoker);
        };
    }

    /**
     * Guards a Kotlin coroutine or flow. A call inside a guarded coroutine that holds all of its
     * keys joins that lease, as a nested call on one thread does; the coroutine's context carries
     * it.
     */
    private @Nullable Object invokeCoroutine(Guard guard, Object target, Object[] args, Invoker invoker)
            throws Throwable {
        GuardOperation operation = guard.operation();
        LockContext joined = LockContexts.holding(operation.kind(), guard.keys());
        if (joined != null && joined.isHeld()) {
            return invoker.invoke();
        }
        return CoroutineGuards.guard(
                operation,
                args,
                this.onLeaseLost,
                () -> acquireOrObserve(guard),
                (lease, outcome) -> release(guard, lease, outcome),
                invoker,
                () -> {
                    if (!operation.enforced()) {
                        return invoker.invoke();
                    }
                    TurnstileException failure = guard.failure(operation.waitTime());
                    Object result = failure(guard, target, args, failure);
                    return result != null ? result : skipValue(operation);
                });
    }

    private @Nullable Object invokeSync(Guard guard, Object target, Object[] args, Invoker invoker) throws Throwable {
        LeaseKind kind = guard.operation().kind();
        LockContext joined = LockContexts.holding(kind, guard.keys());
        if ((joined == null || !joined.isHeld()) && this.transactions != null) {
            joined = this.transactions.deferredHolding(kind, guard.keys());
        }
        if (joined != null && joined.isHeld()) {
            return invokeJoined(guard, joined, invoker);
        }
        List<LockContext> partly =
                guard.operation().kind() == LeaseKind.LOCK ? heldSharing(kind, guard.keys()) : List.of();
        // The keys to take: all of them, or those that outer calls of this thread do not hold.
        Guard taking = partly.isEmpty() ? guard : missing(guard, partly, kind);
        Lease own = null;
        if (taking != null) {
            long start = System.nanoTime();
            Optional<? extends Lease> acquired = acquireOrObserve(taking);
            if (acquired.isEmpty()) {
                return guard.operation().enforced()
                        ? failure(guard, target, args, guard.failure(Duration.ofNanos(System.nanoTime() - start)))
                        : invoker.invoke();
            }
            own = acquired.get();
        }
        if (!partly.isEmpty()) {
            Lease joinedLease = new JoinedLease(
                    guard.keys().stream().sorted().distinct().toList(),
                    partly.stream().map(LockContext::lease).toList(),
                    own);
            if (own == null) {
                return invokeJoined(guard, new LockContext(kind, joinedLease), invoker);
            }
            extendJoined(guard, partly);
            return runAcquired(taking, own, new LockContext(kind, joinedLease), invoker);
        }
        return runAcquired(guard, own, new LockContext(kind, own), invoker);
    }

    /**
     * Runs a call under {@code context}, whose lease {@code lease} (or, for a call that joined
     * outer keys, the part of it) this call acquired: released when the call ends, or when the
     * surrounding transaction completes.
     */
    private @Nullable Object runAcquired(Guard guard, Lease lease, LockContext context, Invoker invoker)
            throws Throwable {
        AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
        lease.onLost(lost::set);
        AtomicReference<GuardOperation.Outcome> outcome = new AtomicReference<>(GuardOperation.Outcome.COMPLETED);
        boolean deferred = this.transactions != null
                && this.transactions.deferRelease(context, () -> release(guard, lease, outcome.get()));
        boolean confirm = this.transactions != null
                && guard.operation().spec() instanceof LockSpec lock
                && lock.confirmBeforeCommit();
        Runnable confirmation = () -> confirm(context);
        if (this.transactions != null) {
            this.transactions.guardCommit(context);
            if (confirm) {
                this.transactions.confirmCommit(context, confirmation);
            }
        }
        Object result;
        LeaseLostEvent lostBeforeRelease;
        try {
            result = confirm
                    ? this.transactions.confirmingCommits(context, confirmation, () -> runUnder(context, invoker))
                    : runUnder(context, invoker);
        } catch (Throwable e) {
            outcome.set(GuardOperation.Outcome.FAILED);
            throw e;
        } finally {
            lostBeforeRelease = lost.get();
            if (!deferred) {
                release(guard, lease, outcome.get());
            }
        }
        LeaseLostEvent lostAtRelease = lost.get();
        if (!deferred && lostBeforeRelease == null && lostAtRelease != null && this.onLeaseLost != OnLeaseLost.LOG) {
            // Found lost only by the release (already logged and counted): too late to interrupt the
            // method or refuse its commit, but its work may not have been exclusive, and the caller
            // must know.
            throw LockLostException.of(
                    context.kind(),
                    lease.name(),
                    lostAtRelease.reason(),
                    "it was " + lostAtRelease.reason().description() + " before "
                            + guard.operation().description() + " released it; its work may not have been exclusive");
        }
        return result;
    }

    /**
     * Confirms the lease in Redis before a commit, on the lease's own terms ({@link Lease#confirm()}:
     * one owner-checked renewal).
     *
     * @throws LockLostException if the lease is no longer this owner's (the commit is refused)
     * @throws dev.turnstile.redis.RedisUnavailableException if Redis cannot be reached (refused too)
     */
    private void confirm(LockContext context) {
        try {
            context.lease().confirm();
        } catch (LockLostException e) {
            // Thrown before the commit, so the transaction rolls back: say so to whoever answers it.
            throw LockLostException.rolledBack(
                    e.kind(),
                    e.name(),
                    e.reason(),
                    e.reason() == null
                            ? "it was lost before the commit"
                            : "it was " + e.reason().description() + " before the commit");
        }
    }

    /**
     * Returns the held lock contexts of this thread (of its running guarded calls, and those whose
     * release waits for a transaction) that share a key with {@code keys}.
     */
    private List<LockContext> heldSharing(LeaseKind kind, List<String> keys) {
        List<LockContext> sharing = new ArrayList<>();
        for (LockContext context : heldOnThisThread(kind)) {
            if (context.keys().stream().anyMatch(keys::contains) && !sharing.contains(context)) {
                sharing.add(context);
            }
        }
        return sharing;
    }

    private List<LockContext> heldOnThisThread(LeaseKind kind) {
        List<LockContext> held = new ArrayList<>(LockContexts.heldOnThisThread(kind));
        if (this.transactions != null) {
            held.addAll(this.transactions.deferredHeld(kind));
        }
        return held;
    }

    /**
     * Returns the guard of the keys of {@code guard} that {@code partly} does not hold, or null if
     * it holds them all.
     *
     * @throws IllegalStateException if one of them sorts before a key this thread holds: taking it
     *     now would break the sorted order in which every multi-key lock takes its keys, and could
     *     deadlock against a call that takes them in that order
     */
    private @Nullable Guard missing(Guard guard, List<LockContext> partly, LeaseKind kind) {
        TreeSet<String> held = new TreeSet<>();
        partly.forEach(context -> held.addAll(context.keys()));
        TreeSet<String> missing = new TreeSet<>(guard.keys());
        missing.removeAll(held);
        if (missing.isEmpty()) {
            return null;
        }
        TreeSet<String> holding = new TreeSet<>();
        heldOnThisThread(kind).forEach(context -> holding.addAll(context.keys()));
        if (missing.first().compareTo(holding.last()) < 0) {
            TreeSet<String> keys = new TreeSet<>(guard.keys());
            throw new IllegalStateException(guard.operation().description() + " asks for lock keys " + keys
                    + " while an outer guarded call on this thread holds " + held + ": it would take "
                    + missing.headSet(holding.last()) + " after " + holding.last()
                    + ", out of the sorted order in which multi-key locks take their keys, and could deadlock"
                    + " with a call that locks " + keys + ". Lock every key in the outer call, or only keys"
                    + " that sort after those held in the inner one.");
        }
        return new Guard(guard.operation(), List.copyOf(missing), guard.limit());
    }

    /** Extends the joined outer leases when the call asks for a longer fixed lease than they have left. */
    private static void extendJoined(Guard guard, List<LockContext> partly) {
        Duration needed = guard.operation().leaseTime();
        if (needed == null) {
            return;
        }
        for (LockContext context : partly) {
            if (context.lease().remaining().compareTo(needed) < 0) {
                context.lease().extend(needed);
            }
        }
    }

    /**
     * Runs a call that joins a lease this thread already holds: the lease is extended first when
     * the call asks for a longer fixed lease than remains (a lost lease fails the call before it
     * runs), and the call is watched like one that acquired.
     */
    private @Nullable Object invokeJoined(Guard guard, LockContext joined, Invoker invoker) throws Throwable {
        Duration needed = guard.operation().leaseTime();
        if (needed != null && joined.lease().remaining().compareTo(needed) < 0) {
            joined.lease().extend(needed);
        }
        return runUnder(joined, invoker);
    }

    /** Runs the method with {@code context} current, interrupted on a lost lease in INTERRUPT mode. */
    private @Nullable Object runUnder(LockContext context, Invoker invoker) throws Throwable {
        MethodThread running = this.onLeaseLost == OnLeaseLost.INTERRUPT ? MethodThread.watch(context.lease()) : null;
        LockContexts.push(context);
        try {
            return invoker.invoke();
        } finally {
            LockContexts.pop();
            if (running != null) {
                running.finished();
            }
        }
    }

    private @Nullable Object invokeAsync(Guard guard, Object target, Object[] args, Invoker invoker) throws Throwable {
        long start = System.nanoTime();
        Optional<? extends Lease> acquired = acquireOrObserve(guard);
        if (acquired.isEmpty() && !guard.operation().enforced()) {
            return invoker.invoke();
        }
        if (acquired.isEmpty()) {
            TurnstileException failure = guard.failure(Duration.ofNanos(System.nanoTime() - start));
            return guard.operation().fallback() == null && guard.operation().onFailure() == OnFailure.THROW
                    ? CompletableFuture.failedFuture(failure)
                    : failure(guard, target, args, failure);
        }
        Lease lease = acquired.get();
        Object result;
        LockContexts.push(new LockContext(guard.operation().kind(), lease));
        try {
            result = invoker.invoke();
        } catch (Throwable e) {
            release(guard, lease, GuardOperation.Outcome.FAILED);
            throw e;
        } finally {
            LockContexts.pop();
        }
        if (result == null) {
            release(guard, lease, GuardOperation.Outcome.COMPLETED);
            return null;
        }
        // Callers see the stage complete only after the lease is released.
        return ((CompletionStage<?>) result)
                .whenComplete((value, error) -> release(
                        guard,
                        lease,
                        error == null ? GuardOperation.Outcome.COMPLETED : GuardOperation.Outcome.FAILED));
    }

    /**
     * Acquires for {@code guard}. Empty when refused: a guard that enforces then applies its failure
     * policy; one that only observes has counted and logged the refusal (an unreachable Redis
     * included), and the method runs without it.
     *
     * @throws RedisUnavailableException if Redis cannot be reached and the guard enforces
     */
    private Optional<? extends Lease> acquireOrObserve(Guard guard) {
        Optional<? extends Lease> lease;
        try {
            lease = acquire(guard);
        } catch (RedisUnavailableException e) {
            if (guard.operation().enforced()) {
                throw e;
            }
            observe(guard, Refusal.UNAVAILABLE);
            return Optional.empty();
        }
        if (lease.isEmpty() && !guard.operation().enforced()) {
            observe(guard, guard.operation().kind() == LeaseKind.LOCK ? Refusal.BUSY : Refusal.FULL);
        }
        return lease;
    }

    /** Counts and logs a refusal that was only observed; a full semaphore's call runs beyond its limit. */
    private void observe(Guard guard, Refusal reason) {
        GuardOperation operation = guard.operation();
        this.observer.refusalObserved(operation.kind(), operation.name(), reason);
        this.refusals.refused(operation.kind(), operation.name(), reason);
        if (reason == Refusal.FULL) {
            this.observer.semaphoreEntered(operation.name(), () -> permitsHeld(guard) + 1);
        }
    }

    /** Returns the permits of the guard's semaphore key held in Redis now: one Redis call. */
    private int permitsHeld(Guard guard) {
        return this.turnstile
                .semaphore(guard.keys().get(0), guard.limit())
                .holders()
                .size();
    }

    /** Acquires, telling the observer and tracking what this node holds. */
    private Optional<? extends Lease> acquire(Guard guard) {
        GuardOperation operation = guard.operation();
        String name = operation.name();
        long start = System.nanoTime();
        Optional<? extends Lease> lease;
        try {
            lease = this.observer.observeAcquire(
                    operation.kind(), name, operation.enforced(), () -> guard.tryAcquire(this.turnstile, this.locks));
        } catch (RuntimeException e) {
            this.observer.failed(operation.kind(), name, Duration.ofNanos(System.nanoTime() - start), e);
            throw e;
        }
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        if (lease.isPresent()) {
            this.observer.acquired(operation.kind(), name, waited);
            this.held.add(operation.kind(), operation.description(), lease.get());
            lease.get().onLost(event -> this.lostLeases.lost(operation, event));
            if (operation.kind() == LeaseKind.SEMAPHORE) {
                this.observer.semaphoreEntered(name, () -> permitsHeld(guard));
            }
        } else if (operation.enforced()) {
            // A guard that only observes refuses nothing: its caller tells refusalObserved instead.
            this.observer.notAcquired(operation.kind(), name, waited);
        }
        return lease;
    }

    /**
     * Releases, or, for a lock with {@code holdAtLeast}, ends the lease and leaves its grant to
     * expire once the hold is over. Never throws: an unreachable Redis is logged, and the grant
     * expires by its own time to live.
     */
    private void release(Guard guard, Lease lease, GuardOperation.Outcome outcome) {
        Duration heldFor = this.held.remove(lease);
        Duration hold = guard.operation().holdAfter(outcome);
        if (hold.isZero()) {
            lease.close();
        } else {
            try {
                lease.releaseAfter(hold);
            } catch (TurnstileException e) {
                log.warn(
                        "Could not release {} '{}' after its hold of {}: {}. It expires in Redis by its lease.",
                        guard.operation().kind(),
                        lease.name(),
                        hold,
                        e.getMessage());
            }
        }
        this.observer.released(guard.operation().kind(), guard.operation().name(), heldFor);
    }

    private @Nullable Object failure(Guard guard, Object target, Object[] args, TurnstileException failure)
            throws Throwable {
        GuardOperation operation = guard.operation();
        if (operation.fallback() != null) {
            return operation.fallback().call(target, args, failure);
        }
        if (operation.onFailure() == OnFailure.SKIP) {
            return skipValue(operation);
        }
        throw failure;
    }

    private Object reactiveFailure(Guard guard, Object target, Object[] args) {
        TurnstileException failure = guard.failure(guard.operation().waitTime());
        try {
            Object result = failure(guard, target, args, failure);
            return result != null ? result : skipValue(guard.operation());
        } catch (Throwable e) {
            return ReactiveGuards.error(guard.operation().returnKind(), e);
        }
    }

    private static @Nullable Object skipValue(GuardOperation operation) {
        Class<?> type = operation.method().getReturnType();
        return switch (operation.returnKind()) {
            case COMPLETION_STAGE -> CompletableFuture.completedFuture(null);
            case MONO, SUSPEND -> ReactiveGuards.skipMono();
            case FLUX, FLOW -> ReactiveGuards.skipFlux();
            case SYNC -> type == Optional.class ? Optional.empty() : null;
        };
    }

    private List<String> keys(GuardOperation operation, EvaluationContext context) {
        if (operation.keyTemplates().isEmpty()) {
            return List.of(operation.defaultKey());
        }
        List<String> keys = new ArrayList<>();
        for (String template : operation.keyTemplates()) {
            keys.addAll(
                    this.evaluator.template(operation.elementKey(), template).render(context, operation.description()));
        }
        return keys;
    }

    private int limit(GuardOperation operation, EvaluationContext context) {
        if (!(operation.spec() instanceof SemaphoreSpec semaphore)) {
            return 0;
        }
        if (semaphore.limitExpression() == null) {
            return semaphore.limit();
        }
        Integer limit = this.evaluator
                .expression(operation.elementKey(), semaphore.limitExpression())
                .getValue(context, Integer.class);
        if (limit == null || limit < 1) {
            throw new IllegalArgumentException("'limitExpression' '" + semaphore.limitExpression() + "' of "
                    + operation.description() + " must yield at least 1 but yielded " + limit);
        }
        return limit;
    }
}
