package dev.turnstile.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Holds a guarded call open until released, for the web tests: {@link #hold} starts a call and
 * returns once it is inside its guard; the guarded method calls {@link #pass} with its {@code hold}
 * flag; {@link #release} lets it finish. One held call at a time.
 */
final class Gate {

    private static volatile CountDownLatch inside = new CountDownLatch(1);
    private static volatile CountDownLatch release = new CountDownLatch(1);

    private Gate() {}

    static CompletableFuture<HttpResponse<String>> hold(Supplier<HttpResponse<String>> call)
            throws InterruptedException {
        inside = new CountDownLatch(1);
        release = new CountDownLatch(1);
        CompletableFuture<HttpResponse<String>> holder = CompletableFuture.supplyAsync(call);
        assertThat(inside.await(10, TimeUnit.SECONDS)).as("the holding call is inside").isTrue();
        return holder;
    }

    static void pass(boolean hold) {
        if (hold) {
            inside.countDown();
            try {
                release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static void release() {
        release.countDown();
    }
}
