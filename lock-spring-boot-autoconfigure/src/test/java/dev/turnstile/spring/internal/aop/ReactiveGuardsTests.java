package dev.turnstile.spring.internal.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseListener;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** The Reactor plumbing alone: every lease acquired is released once, whatever the subscriber does. */
class ReactiveGuardsTests {

    private final AtomicInteger acquired = new AtomicInteger();
    private final AtomicInteger released = new AtomicInteger();

    @Test
    void leaseThatArrivesAfterTheSubscriberCancelledIsReleased() {
        Mono<?> guarded = (Mono<?>) ReactiveGuards.guard(
                ReturnKind.MONO,
                this::slowAcquire,
                (lease, outcome) -> this.released.incrementAndGet(),
                () -> Mono.just("ran"),
                Mono::empty);
        StepVerifier.create(guarded.timeout(Duration.ofMillis(20)))
                .expectError()
                .verify();
        await().atMost(Duration.ofSeconds(5)).until(() -> this.acquired.get() == 1 && this.released.get() == 1);
    }

    @Test
    void leaseIsReleasedOnceOnCompleteAndOnError() {
        @SuppressWarnings("unchecked")
        Mono<Object> ok = (Mono<Object>) ReactiveGuards.guard(
                ReturnKind.MONO,
                this::fastAcquire,
                (lease, outcome) -> this.released.incrementAndGet(),
                () -> Mono.just("ran"),
                Mono::empty);
        StepVerifier.create(ok).expectNext((Object) "ran").verifyComplete();
        Mono<?> failing = (Mono<?>) ReactiveGuards.guard(
                ReturnKind.MONO,
                this::fastAcquire,
                (lease, outcome) -> this.released.incrementAndGet(),
                () -> Mono.error(new IllegalStateException("boom")),
                Mono::empty);
        StepVerifier.create(failing).expectError(IllegalStateException.class).verify();
        await().atMost(Duration.ofSeconds(5)).until(() -> this.released.get() == 2);
        assertThat(this.acquired).hasValue(2);
    }

    private Optional<Lease> slowAcquire() {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200)); // a Redis call that ignores interrupts
        return fastAcquire();
    }

    private Optional<Lease> fastAcquire() {
        this.acquired.incrementAndGet();
        return Optional.of(new TestLease());
    }

    /** A lease with no Redis behind it: this test is about the Reactor plumbing only. */
    private static final class TestLease implements Lease {
        public String name() {
            return "test";
        }

        public List<String> names() {
            return List.of("test");
        }

        public long fencingToken() {
            return 1;
        }

        public Map<String, Long> fencingTokens() {
            return Map.of("test", 1L);
        }

        public boolean isHeld() {
            return true;
        }

        public Duration remaining() {
            return Duration.ofSeconds(1);
        }

        public void extend(Duration leaseTime) {}

        public void confirm() {}

        public boolean release() {
            return true;
        }

        public boolean releaseAfter(Duration holdAtLeast) {
            return true;
        }

        public void onLost(LeaseListener listener) {}

        public void close() {}
    }
}
