package dev.turnstile.spring.aop;

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
import reactor.core.scheduler.Schedulers;

/**
 * Guards methods returning {@code Mono} or {@code Flux} (only loaded when Reactor is present):
 * acquire on subscribe, release on complete, error or cancel. Acquire and release are blocking
 * Redis calls, so they run on the bounded-elastic scheduler, never on a non-blocking thread.
 */
final class ReactiveGuards {

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

    /**
     * @param acquire blocking acquire: a lease or empty
     * @param releaser blocking release, told how the method ended
     * @param body calls the method once the lease is held
     * @param onFailure the publisher to return when not acquired (error, empty, or the fallback's);
     *     typed Object so that callers need no Reactor types
     */
    @SuppressWarnings("unchecked")
    static Object guard(
            ReturnKind kind,
            Callable<Optional<? extends Lease>> acquire,
            BiConsumer<Lease, GuardOperation.Outcome> releaser,
            Invoker body,
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
        BiFunction<Optional<? extends Lease>, GuardOperation.Outcome, Mono<Void>> release =
                (maybe, outcome) -> maybe.isEmpty()
                        ? Mono.empty()
                        : Mono.<Void>fromRunnable(() -> releaser.accept(maybe.get(), outcome))
                                .subscribeOn(Schedulers.boundedElastic());
        Function<Optional<? extends Lease>, Mono<Void>> completed =
                maybe -> release.apply(maybe, GuardOperation.Outcome.COMPLETED);
        if (kind == ReturnKind.MONO) {
            return Mono.usingWhen(
                    lease,
                    maybe -> maybe.isEmpty()
                            ? Mono.from((Publisher<Object>) onFailure.get())
                            : (Mono<Object>) call(body),
                    completed,
                    (maybe, error) -> release.apply(maybe, GuardOperation.Outcome.FAILED),
                    completed);
        }
        return Flux.usingWhen(
                lease,
                maybe -> maybe.isEmpty() ? Flux.from((Publisher<Object>) onFailure.get()) : (Flux<Object>) call(body),
                completed,
                (maybe, error) -> release.apply(maybe, GuardOperation.Outcome.FAILED),
                completed);
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
