package dev.turnstile.spring.internal.aop;

import dev.turnstile.redis.Lease;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Guards methods returning {@code Mono} or {@code Flux} (only loaded when Reactor is present):
 * acquire on subscribe, release on complete, error or cancel. Acquire and release are blocking
 * Redis calls, so they run on bounded-elastic schedulers (releases on their own), never on a
 * non-blocking thread.
 */
final class ReactiveGuards {

    /**
     * Where releases run: apart from acquisitions, which may each wait up to their wait time on a
     * bounded-elastic thread; a release queued behind them could not free the lock they wait for.
     */
    static final Scheduler RELEASES = Schedulers.newBoundedElastic(
            Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE,
            Schedulers.DEFAULT_BOUNDED_ELASTIC_QUEUESIZE,
            "turnstile-release",
            60,
            true);

    private ReactiveGuards() {}

    static boolean isMono(Class<?> type) {
        return Mono.class.isAssignableFrom(type);
    }

    static boolean isFlux(Class<?> type) {
        return Flux.class.isAssignableFrom(type);
    }

    static Publisher<Object> error(ReturnKind kind, Throwable error) {
        return kind == ReturnKind.MONO ? Mono.error(error) : Flux.error(error);
    }

    static Mono<Object> skipMono() {
        return Mono.empty();
    }

    static Flux<Object> skipFlux() {
        return Flux.empty();
    }

    /** Starts the guarded method once its lease is held, returning what it publishes. */
    @FunctionalInterface
    interface Body {
        Publisher<?> start(Lease lease);
    }

    /** Releases a lease, told how the method ended; completes (or fails the call) once released. */
    @FunctionalInterface
    interface Release {
        Mono<Void> release(Lease lease, GuardOperation.Outcome outcome);
    }

    /**
     * @param acquire blocking acquire: a lease or empty
     * @param releaser blocking release, told how the method ended
     * @param body calls the method once the lease is held
     * @param onFailure the publisher to return when not acquired (error, empty, or the fallback's);
     *     typed Object so that callers need no Reactor types
     */
    static Object guard(
            ReturnKind kind,
            Callable<Optional<? extends Lease>> acquire,
            BiConsumer<Lease, GuardOperation.Outcome> releaser,
            Invoker body,
            Supplier<Object> onFailure) {
        return guard(
                kind == ReturnKind.MONO,
                acquire,
                releaser,
                lease -> call(body),
                (lease, outcome) -> Mono.<Void>fromRunnable(() -> releaser.accept(lease, outcome))
                        .subscribeOn(RELEASES),
                onFailure);
    }

    /**
     * As {@link #guard(ReturnKind, Callable, BiConsumer, Invoker, Supplier)}, with the method started
     * by {@code body} and each lease it ran under released by {@code release}; {@code releaser}
     * releases a lease that arrived after the subscriber left.
     *
     * @param mono a {@code Mono} (else a {@code Flux}) is returned
     */
    @SuppressWarnings("unchecked")
    static Object guard(
            boolean mono,
            Callable<Optional<? extends Lease>> acquire,
            BiConsumer<Lease, GuardOperation.Outcome> releaser,
            Body body,
            Release release,
            Supplier<Object> onFailure) {
        // The acquired lease is the resource of usingWhen, released on complete, error and cancel.
        // A lease that arrives after the subscriber cancelled is discarded by Reactor: release it.
        Mono<Optional<? extends Lease>> lease = Mono.<Optional<? extends Lease>>create(sink -> {
                    AtomicInteger state = new AtomicInteger(); // 0 acquiring, 1 handed over, 2 cancelled
                    sink.onCancel(() -> state.compareAndSet(0, 2));
                    Schedulers.boundedElastic().schedule(() -> {
                        Optional<? extends Lease> acquired;
                        try {
                            acquired = acquire.call();
                        } catch (Throwable e) {
                            sink.error(e);
                            return;
                        }
                        if (state.compareAndSet(0, 1)) {
                            sink.success(acquired);
                        } else {
                            acquired.ifPresent(held -> releaser.accept(held, GuardOperation.Outcome.NOT_RUN));
                        }
                    });
                })
                .doOnDiscard(
                        Optional.class,
                        dropped -> ((Optional<?>) dropped)
                                .ifPresent(held -> releaser.accept((Lease) held, GuardOperation.Outcome.NOT_RUN)));
        BiFunction<Optional<? extends Lease>, GuardOperation.Outcome, Mono<Void>> released =
                (maybe, outcome) -> maybe.isEmpty() ? Mono.empty() : release.release(maybe.get(), outcome);
        Function<Optional<? extends Lease>, Mono<Void>> completed =
                maybe -> released.apply(maybe, GuardOperation.Outcome.COMPLETED);
        Function<Optional<? extends Lease>, Publisher<Object>> run =
                maybe -> (Publisher<Object>) (maybe.isEmpty() ? onFailure.get() : start(body, maybe.get()));
        BiFunction<Optional<? extends Lease>, Throwable, Mono<Void>> failed =
                (maybe, error) -> released.apply(maybe, GuardOperation.Outcome.FAILED);
        if (mono) {
            return Mono.usingWhen(lease, maybe -> Mono.from(run.apply(maybe)), completed, failed, completed);
        }
        return Flux.usingWhen(lease, maybe -> Flux.from(run.apply(maybe)), completed, failed, completed);
    }

    private static Publisher<?> start(Body body, Lease lease) {
        try {
            Publisher<?> started = body.start(lease);
            return started == null ? Mono.empty() : started;
        } catch (RuntimeException e) {
            return Mono.error(e);
        }
    }

    /** Calls the method: its publisher, empty for null, or the error it threw. */
    static Publisher<?> call(Invoker body) {
        try {
            Object result = body.invoke();
            return result == null ? Mono.empty() : (Publisher<?>) result;
        } catch (Throwable e) {
            return Mono.error(e);
        }
    }
}
