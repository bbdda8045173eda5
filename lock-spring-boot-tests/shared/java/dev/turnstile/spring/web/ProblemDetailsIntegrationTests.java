package dev.turnstile.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.annotation.Semaphore;
import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LockLostException;
import dev.turnstile.redis.SemaphoreFullException;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.spring.LockContext;
import dev.turnstile.test.redis.RedisServerExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import reactor.core.publisher.Mono;

/** Refusals reach HTTP clients as problem details, in a real servlet and a real reactive server. */
class ProblemDetailsIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private ConfigurableApplicationContext app;

    @AfterEach
    void stop() {
        Gate.release();
        if (this.app != null) {
            this.app.close();
        }
    }

    @Test
    void fullSemaphoreIs429WithRetryAfterAndBusyLockIs409InSpringMvc() throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class);
        refusalsAreProblemDetails();
    }

    @Test
    void fullSemaphoreIs429WithRetryAfterAndBusyLockIs409InWebFlux() throws Exception {
        this.app = start(WebApplicationType.REACTIVE, ReactiveApi.class);
        refusalsAreProblemDetails();
    }

    private void refusalsAreProblemDetails() throws Exception {
        CompletableFuture<HttpResponse<String>> holder = Gate.hold(() -> get("/quote/acme?hold=true"));
        HttpResponse<String> refused = get("/quote/acme");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(refused.body())
                .contains("\"status\":429")
                .contains("\"semaphore\":\"partner:acme\"")
                .contains("\"limit\":1")
                .doesNotContain("turnstile:")
                .doesNotContain("Exception")
                .doesNotContain("at dev.");
        Gate.release();
        assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

        holder = Gate.hold(() -> get("/item/42?hold=true"));
        HttpResponse<String> busy = get("/item/42");
        assertThat(busy.statusCode()).isEqualTo(409);
        assertThat(busy.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(busy.body()).contains("\"lock\":\"item:42\"").doesNotContain("turnstile:");
        Gate.release();
        assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    @Test
    void unreachableRedisIs503WithRetryAfter() throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class, "spring.data.redis.port=1");
        HttpResponse<String> down = get("/item/7");
        assertThat(down.statusCode()).isEqualTo(503);
        assertThat(down.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(down.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(down.body()).contains("\"status\":503").doesNotContain("127.0.0.1").doesNotContain("Connection");
    }

    @Test
    void unreachableRedisIs503WithRetryAfterInWebFlux() throws Exception {
        this.app = start(WebApplicationType.REACTIVE, ReactiveApi.class, "spring.data.redis.port=1");
        HttpResponse<String> down = get("/item/7");
        assertThat(down.statusCode()).isEqualTo(503);
        assertThat(down.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(down.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(down.body()).contains("\"status\":503").doesNotContain("127.0.0.1").doesNotContain("Connection");
    }

    @Test
    void anInterruptedWaitForALockIs503SayingSoWithoutRetryAfter() throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class);
        CompletableFuture<HttpResponse<String>> holder = Gate.hold(() -> get("/item/42?hold=true"));
        Waiter.thread.set(null);
        CompletableFuture<HttpResponse<String>> waiting = CompletableFuture.supplyAsync(() -> get("/item/42/patient"));
        Thread waiter = await().atMost(Duration.ofSeconds(10))
                .until(Waiter.thread::get, thread -> thread != null && LockSupport.getBlocker(thread) != null);
        waiter.interrupt();
        HttpResponse<String> interrupted = waiting.get(10, TimeUnit.SECONDS);
        assertThat(interrupted.statusCode()).isEqualTo(503);
        assertThat(interrupted.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(interrupted.headers().firstValue("Retry-After")).isEmpty();
        assertThat(interrupted.body())
                .contains("\"status\":503")
                .contains("\"lock\":\"item:42\"")
                .contains("interrupted while it waited for 'item:42'")
                .doesNotContain("another request")
                .doesNotContain("turnstile:");
        Gate.release();
        assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    @Test
    void aLockLostWhileTheMethodRanIs409NamingTheLock() throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class);
        HttpResponse<String> lost = takenOverWhileRunning("/item/42/long");
        assertThat(lost.statusCode()).isEqualTo(409);
        assertThat(lost.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(lost.headers().firstValue("Retry-After")).isEmpty();
        assertThat(lost.body())
                .contains("\"status\":409")
                .contains("\"lock\":\"item:42\"")
                .containsPattern("'item:42' was [a-z ]+ before the request finished; its work may not have been"
                        + " exclusive")
                .contains("\"rolledBack\":false")
                .doesNotContain("turnstile:")
                .doesNotContain("Exception");
    }

    @Test
    void theApplicationsOwnHandlerWins() throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class, OwnHandler.class);
        CompletableFuture<HttpResponse<String>> holder = Gate.hold(() -> get("/quote/acme?hold=true"));
        HttpResponse<String> refused = get("/quote/acme");
        assertThat(refused.statusCode()).isEqualTo(418);
        assertThat(refused.body()).isEqualTo("own answer");
        Gate.release();
        holder.get(10, TimeUnit.SECONDS);

        HttpResponse<String> lost = takenOverWhileRunning("/item/42/long");
        assertThat(lost.statusCode()).isEqualTo(418);
        assertThat(lost.body()).isEqualTo("own answer: lost item:42");
    }

    /** Runs {@code path} (a guarded call that extends its lease) while another owner takes the lock over. */
    private HttpResponse<String> takenOverWhileRunning(String path) throws Exception {
        CompletableFuture<HttpResponse<String>> holder = Gate.hold(() -> get(path));
        assertThat(this.app.getBean(Turnstile.class).lock("item:42").forceRelease()).containsExactly("item:42");
        // A forced release keeps the name from other processes for the lock cohort's longest age.
        try (Turnstile other = Turnstile.builder(redis.server().client()).build();
                Lease taken = other.lock("item:42").acquire(Duration.ofSeconds(5), null)) {
            Gate.release();
            return holder.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void problemDetailsCanBeSwitchedOff() throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class, "turnstile.web.problem-details=false");
        assertThat(this.app.getBeanNamesForType(TurnstileProblemHandler.class)).isEmpty();
        CompletableFuture<HttpResponse<String>> holder = Gate.hold(() -> get("/quote/acme?hold=true"));
        HttpResponse<String> refused = get("/quote/acme");
        assertThat(refused.statusCode()).isEqualTo(500);
        Gate.release();
        holder.get(10, TimeUnit.SECONDS);
    }

    private ConfigurableApplicationContext start(WebApplicationType type, Class<?> api, Object... more) {
        SpringApplicationBuilder builder = new SpringApplicationBuilder(App.class, api)
                .web(type)
                .properties(
                        "server.port=0",
                        "spring.main.banner-mode=off",
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port(),
                        "spring.data.redis.timeout=500ms",
                        "turnstile.web.retry-after=1500ms",
                        "management.health.redis.enabled=false");
        for (Object extra : more) {
            if (extra instanceof Class<?> source) {
                builder.sources(source);
            } else {
                builder.properties(extra.toString());
            }
        }
        return builder.run();
    }

    private HttpResponse<String> get(String path) {
        String port = this.app.getEnvironment().getProperty("local.server.port");
        try {
            return HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                            .timeout(Duration.ofSeconds(20))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Holds a guarded call open until released, so the next call is refused. */
    public static class Partner {
        @Semaphore(key = "partner:#account", limit = 1)
        public String quote(String account, boolean hold) {
            Gate.pass(hold);
            return "quote for " + account;
        }

        @DistributedLock(key = "item:#id", waitTime = "0s")
        public String update(String id, boolean hold) {
            Gate.pass(hold);
            return "updated " + id;
        }

        @DistributedLock(key = "item:#id", waitTime = "20s")
        public String updatePatiently(String id) {
            return "updated " + id;
        }

        @DistributedLock(key = "item:#id", waitTime = "0s")
        public String updateAtLength(String id) {
            Gate.pass(true);
            LockContext.current().lease().extend(Duration.ofSeconds(30));
            return "updated " + id;
        }

        @Semaphore(key = "partner:#account", limit = 1)
        public Mono<String> quoteLater(String account, boolean hold) {
            return Mono.fromCallable(() -> quote(account, hold))
                    .subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic());
        }

        @DistributedLock(key = "item:#id", waitTime = "0s")
        public Mono<String> updateLater(String id, boolean hold) {
            return Mono.fromCallable(() -> {
                        Gate.pass(hold);
                        return "updated " + id;
                    })
                    .subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Partner partner() {
            return new Partner();
        }
    }

    @RestController
    static class Api {
        private final Partner partner;

        Api(Partner partner) {
            this.partner = partner;
        }

        @GetMapping("/quote/{account}")
        String quote(@PathVariable("account") String account, @RequestParam(name = "hold", defaultValue = "false") boolean hold) {
            return this.partner.quote(account, hold);
        }

        @GetMapping("/item/{id}")
        String item(@PathVariable("id") String id, @RequestParam(name = "hold", defaultValue = "false") boolean hold) {
            return this.partner.update(id, hold);
        }

        @GetMapping("/item/{id}/patient")
        String itemPatiently(@PathVariable("id") String id) {
            Waiter.thread.set(Thread.currentThread());
            return this.partner.updatePatiently(id);
        }

        @GetMapping("/item/{id}/long")
        String itemAtLength(@PathVariable("id") String id) {
            return this.partner.updateAtLength(id);
        }
    }

    /** The request thread that waits for a lock, for the test to interrupt. */
    static final class Waiter {
        static final AtomicReference<Thread> thread = new AtomicReference<>();
    }

    @RestController
    static class ReactiveApi {
        private final Partner partner;

        ReactiveApi(Partner partner) {
            this.partner = partner;
        }

        @GetMapping("/quote/{account}")
        Mono<String> quote(@PathVariable("account") String account, @RequestParam(name = "hold", defaultValue = "false") boolean hold) {
            return this.partner.quoteLater(account, hold);
        }

        @GetMapping("/item/{id}")
        Mono<String> item(@PathVariable("id") String id, @RequestParam(name = "hold", defaultValue = "false") boolean hold) {
            return this.partner.updateLater(id, hold);
        }
    }

    @RestControllerAdvice
    static class OwnHandler {
        @ExceptionHandler(SemaphoreFullException.class)
        ResponseEntity<String> full(SemaphoreFullException e) {
            return ResponseEntity.status(HttpStatus.I_AM_A_TEAPOT).body("own answer");
        }

        @ExceptionHandler(LockLostException.class)
        ResponseEntity<String> lost(LockLostException e) {
            return ResponseEntity.status(HttpStatus.I_AM_A_TEAPOT).body("own answer: lost " + e.name());
        }
    }
}
