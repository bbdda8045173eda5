package dev.turnstile.spring.aop;

import dev.turnstile.redis.Lease;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
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
     * @param releaser blocking release
     * @param body calls the method once the lease is held
     * @param onFailure the publisher to return when not acquired (error, empty, or the fallback's);
     *     typed Object so that callers need no Reactor types
     */
    @SuppressWarnings("unchecked")
    static Object guard(
            ReturnKind kind,
            Callable<Optional<? extends Lease>> acquire,
            Consumer<Lease> releaser,
            Invoker body,
            Supplier<Object> onFailure) {
        Mono<Optional<? extends Lease>> lease = Mono.fromCallable(acquire).subscribeOn(Schedulers.boundedElastic());
        Function<Lease, Mono<Void>> release =
                held -> Mono.<Void>fromRunnable(() -> releaser.accept(held)).subscribeOn(Schedulers.boundedElastic());
        if (kind == ReturnKind.MONO) {
            return lease.flatMap(maybe -> maybe.isEmpty()
                    ? Mono.from((Publisher<Object>) onFailure.get())
                    : Mono.usingWhen(
                            Mono.just((Lease) maybe.get()),
                            held -> (Mono<Object>) call(body),
                            release,
                            (held, error) -> release.apply(held),
                            release));
        }
        return lease.flatMapMany(maybe -> maybe.isEmpty()
                ? Flux.from((Publisher<Object>) onFailure.get())
                : Flux.usingWhen(
                        Mono.just((Lease) maybe.get()),
                        held -> (Flux<Object>) call(body),
                        release,
                        (held, error) -> release.apply(held),
                        release));
    }

    private static Publisher<?> call(Invoker body) {
        try {
            Object result = body.invoke();
            return result == null ? Mono.empty() : (Publisher<?>) result;
        } catch (Throwable e) {
            return Mono.error(e);
        }
    }
}
