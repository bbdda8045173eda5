package dev.turnstile.redis.internal;

import dev.turnstile.redis.TurnstileException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What a lock's and a semaphore's {@code acquire} share: it is their {@code tryAcquire}, throwing
 * when the wait passes.
 */
public final class Acquires {

    private Acquires() {}

    /**
     * Returns what {@code tryAcquire} got; throws {@code refusal} of the time waited when it got
     * nothing.
     */
    public static <L> L orRefuse(
            Supplier<Optional<L>> tryAcquire, Function<Duration, ? extends TurnstileException> refusal) {
        long start = System.nanoTime();
        return tryAcquire.get().orElseThrow(() -> refusal.apply(Duration.ofNanos(System.nanoTime() - start)));
    }
}
