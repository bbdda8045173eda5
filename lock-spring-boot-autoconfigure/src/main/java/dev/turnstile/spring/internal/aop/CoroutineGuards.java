package dev.turnstile.spring.internal.aop;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LockLostException;
import dev.turnstile.spring.LockContext;
import dev.turnstile.spring.aop.OnLeaseLost;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import kotlin.coroutines.Continuation;
import kotlinx.coroutines.Job;
import kotlinx.coroutines.flow.Flow;
import kotlinx.coroutines.reactive.ReactiveFlowKt;
import kotlinx.coroutines.reactor.ReactorFlowKt;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.core.CoroutinesUtils;
import org.springframework.core.KotlinDetector;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Guards Kotlin {@code suspend} functions and {@code Flow}s (only loaded for them, when
 * kotlinx-coroutines-reactor is present). Spring AOP (Framework 6.1+) hands a {@code suspend}
 * function's coroutine to the aspect as a lazy {@code Mono} ({@code Flux} for a {@code Flow}),
 * which is guarded as a reactive method is: acquire when the caller awaits it, on a
 * bounded-elastic scheduler (never on the caller's dispatcher), start the coroutine once the lease
 * is held, and release when it completes or fails; on cancellation, once the coroutine has stopped
 * (at its next suspension point, or when code that ignores cancellation returns). The coroutine
 * carries a {@link CoroutineGuard}: {@link LockContext#current()} works in it on any thread.
 */
final class CoroutineGuards {

    private CoroutineGuards() {}

    /** One run of the coroutine under one lease. */
    private record Run(CoroutineGuard guard, AtomicBoolean lost) {}

    /**
     * Returns the guarded {@code Mono}, {@code Flux} or {@code Flow}, the method's result.
     *
     * @param args the call's arguments; a {@code suspend} function's continuation is replaced in it
     *     before {@code invoker} proceeds
     * @param acquire blocking acquire: a lease or empty
     * @param releaser blocking release
     * @param invoker proceeds with {@code args}
     * @param onFailure returns the result when not acquired: a publisher, a {@code Flow}, or a
     *     value; or throws the failure
     */
    @SuppressWarnings("unchecked")
    static Object guard(
            GuardOperation operation,
            Object[] args,
            OnLeaseLost onLeaseLost,
            Callable<Optional<? extends Lease>> acquire,
            BiConsumer<Lease, GuardOperation.Outcome> releaser,
            Invoker invoker,
            Invoker onFailure) {
        boolean suspending = KotlinDetector.isSuspendingFunction(operation.method());
        Continuation<Object> caller = suspending ? (Continuation<Object>) args[args.length - 1] : null;
        CoroutineGuard outer = caller != null ? CoroutineGuard.of(caller.getContext()) : null;
        LeaseKind kind = operation.kind();
        Map<Lease, Run> runs = new ConcurrentHashMap<>();
        ReactiveGuards.Body body = lease -> {
            CoroutineGuard guard = new CoroutineGuard(outer, new LockContext(kind, lease));
            Run run = new Run(guard, new AtomicBoolean());
            runs.put(lease, run);
            lease.onLost(event -> {
                run.lost().set(true);
                if (onLeaseLost != OnLeaseLost.LOG) {
                    guard.cancel("The " + kind.label() + " '" + lease.name() + "' of " + operation.description()
                            + " was lost while it ran");
                }
            });
            Publisher<?> started;
            try {
                if (caller != null) {
                    args[args.length - 1] = new GuardedContinuation(caller, guard);
                    started = (Publisher<?>) invoker.invoke();
                } else {
                    Flow<Object> flow = (Flow<Object>) invoker.invoke();
                    started = flow == null ? Flux.empty() : ReactorFlowKt.asFlux(flow, guard);
                }
            } catch (Throwable e) {
                return Mono.error(e);
            }
            if (started == null) {
                return Mono.empty();
            }
            return Flux.from(started)
                    .onErrorMap(
                            CancellationException.class::isInstance,
                            e -> run.lost().get() && onLeaseLost != OnLeaseLost.LOG
                                    ? lost(operation, lease, "while it ran; the coroutine was cancelled")
                                    : e);
        };
        ReactiveGuards.Release release = (lease, outcome) -> Mono.create(sink -> {
            Run run = runs.remove(lease);
            Runnable releasing = () -> ReactiveGuards.RELEASES.schedule(() -> {
                boolean lostBefore = run != null && run.lost().get();
                try {
                    releaser.accept(lease, outcome);
                } catch (RuntimeException e) {
                    sink.error(e);
                    return;
                }
                if (run != null && !lostBefore && run.lost().get() && onLeaseLost != OnLeaseLost.LOG) {
                    sink.error(lost(operation, lease, "before it was released; its work may not have been exclusive"));
                } else {
                    sink.success();
                }
            });
            if (run == null) {
                releasing.run();
            } else {
                run.guard().whenStopped(releasing);
            }
        });
        Supplier<Object> refused = () -> {
            try {
                return publisher(onFailure.invoke());
            } catch (Throwable e) {
                return Mono.error(e);
            }
        };
        Object guarded = ReactiveGuards.guard(
                operation.returnKind() == ReturnKind.SUSPEND, acquire, releaser, body, release, refused);
        return suspending ? guarded : ReactiveFlowKt.asFlow((Publisher<Object>) guarded);
    }

    /** A Mono or Flux for what a refused call returns: a fallback's publisher, flow or value. */
    private static Publisher<?> publisher(@Nullable Object result) {
        if (result instanceof Publisher<?> publisher) {
            return publisher;
        }
        if (result instanceof Flow<?> flow) {
            return ReactorFlowKt.asFlux(flow);
        }
        return Mono.justOrEmpty(result);
    }

    private static LockLostException lost(GuardOperation operation, Lease lease, String when) {
        return LockLostException.of(
                operation.kind(), lease.name(), "its lease was lost " + when + " (" + operation.description() + ")");
    }

    /**
     * Calls the {@code suspend} function {@code method} on {@code target} in the context of the
     * caller whose continuation ends {@code args}, as Spring AOP does: a {@code Mono}, or a {@code
     * Flux} for a {@code Flow}.
     */
    @SuppressWarnings("unchecked")
    static Publisher<?> callSuspending(Method method, Object target, Object[] args) {
        Continuation<Object> caller = (Continuation<Object>) args[args.length - 1];
        return CoroutinesUtils.invokeSuspendingFunction(caller.getContext().minusKey(Job.Key), method, target, args);
    }
}
