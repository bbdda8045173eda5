package dev.turnstile.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.annotation.Enforce;
import dev.turnstile.annotation.Semaphore;
import dev.turnstile.test.redis.RedisServerExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * A cap shipped to a running application in observe mode ({@code turnstile.enforce=false}, the
 * override lists, {@code enforce = Enforce.OBSERVE}), in a real server with the actuator and
 * Prometheus: what it would have refused runs and is counted, the concurrency and wait
 * distributions are scraped, one property switches it to refusing, and health still tells a Redis
 * outage.
 */
@ExtendWith(OutputCaptureExtension.class)
class ObserveModeIntegrationTests {

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
    void anObservedSemaphoreLetsBothCallsRunAndCountsOneRefusal(CapturedOutput output) throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class, "turnstile.enforce=false");
        bothCallsRunAndOneRefusalIsCounted(output);
    }

    @Test
    void anObservedSemaphoreLetsBothCallsRunAndCountsOneRefusalInWebFlux(CapturedOutput output) throws Exception {
        this.app = start(WebApplicationType.REACTIVE, ReactiveApi.class, "turnstile.enforce=false");
        bothCallsRunAndOneRefusalIsCounted(output);
    }

    private void bothCallsRunAndOneRefusalIsCounted(CapturedOutput output) throws Exception {
        CompletableFuture<HttpResponse<String>> holder = Gate.hold(() -> get("/quote/acme?hold=true"));
        HttpResponse<String> second = get("/quote/acme");
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(second.body()).isEqualTo("quote for acme");
        Gate.release();
        assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

        String metrics = scrape();
        assertThat(sample(metrics, "turnstile_observed_refusals_total",
                        "kind=\"semaphore\"", "name=\"partner:#account\"", "reason=\"full\""))
                .isEqualTo(1);
        assertThat(sample(metrics, "turnstile_semaphore_concurrency_count", "name=\"partner:#account\""))
                .as("both calls sampled: the one with the permit and the one beyond the limit")
                .isEqualTo(2);
        assertThat(bucket(metrics, "turnstile_semaphore_concurrency_bucket", "partner:#account", "1.0"))
                .isEqualTo(1);
        assertThat(bucket(metrics, "turnstile_semaphore_concurrency_bucket", "partner:#account", "2.0"))
                .as("the second call ran with the first: two at once")
                .isEqualTo(2);
        assertThat(output.getAll().lines().filter(line -> line.contains("only observes")))
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .contains("INFO")
                        .contains("The semaphore 'partner:#account' only observes: it would have refused 1 call(s)"
                                + " (full 1)"));
    }

    @Test
    void anObservedLockRunsABusyCallAndItsWaitsAreADistribution() throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class, "turnstile.enforce=false");
        CompletableFuture<HttpResponse<String>> holder = Gate.hold(() -> get("/item/42?hold=true"));
        assertThat(get("/item/42").statusCode()).isEqualTo(200);
        Gate.release();
        assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        holder = Gate.hold(() -> get("/later/acme?hold=true"));
        assertThat(get("/later/acme").body())
                .as("a CompletableFuture's permit is held until it completes")
                .isEqualTo("later for acme");
        Gate.release();
        assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

        String metrics = scrape();
        assertThat(sample(metrics, "turnstile_observed_refusals_total",
                        "kind=\"lock\"", "name=\"item:#id\"", "reason=\"busy\""))
                .isEqualTo(1);
        assertThat(sample(metrics, "turnstile_observed_refusals_total",
                        "kind=\"semaphore\"", "name=\"later:#account\"", "reason=\"full\""))
                .isEqualTo(1);
        assertThat(sample(metrics, "turnstile_lock_wait_seconds_count", "name=\"item:#id\"", "outcome=\"acquired\""))
                .isEqualTo(1);
        assertThat(lines(metrics, "turnstile_lock_wait_seconds_count"))
                .as("a call the lock let run is no busy wait")
                .noneMatch(line -> line.contains("outcome=\"busy\""));
        assertThat(lines(metrics, "turnstile_lock_wait_seconds_bucket"))
                .as("histogram buckets for histogram_quantile")
                .hasSizeGreaterThan(10);
    }

    @Test
    void anOverrideEnforcesOneCapWhileAnotherIsObserved() throws Exception {
        this.app = start(
                WebApplicationType.SERVLET,
                Api.class,
                "turnstile.enforce=false",
                "turnstile.enforced-names=partner:#account");
        assertThat(secondCallWhileOneHolds("/quote/acme")).as("enforced by name").isEqualTo(429);
        assertThat(secondCallWhileOneHolds("/export/acme")).as("observed").isEqualTo(200);
        String metrics = scrape();
        assertThat(sample(metrics, "turnstile_observed_refusals_total", "name=\"export:#account\""))
                .isEqualTo(1);
        assertThat(lines(metrics, "turnstile_observed_refusals_total"))
                .noneMatch(line -> line.contains("partner:#account"));
    }

    @Test
    void anEnforcingApplicationObservesTheCapsNamedInConfigurationOrByTheirAnnotation() throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class, "turnstile.observed-names[0]=audit:#account");
        assertThat(secondCallWhileOneHolds("/quote/acme")).isEqualTo(429);
        assertThat(secondCallWhileOneHolds("/export/acme")).isEqualTo(429);
        assertThat(secondCallWhileOneHolds("/report/acme"))
                .as("enforce = Enforce.OBSERVE on the annotation")
                .isEqualTo(200);
        assertThat(secondCallWhileOneHolds("/audit/acme"))
                .as("observed-names wins over enforce = Enforce.ENFORCE")
                .isEqualTo(200);
    }

    @Test
    void switchingToEnforceRefusesWith429AsBefore() throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class, "turnstile.enforce=true");
        CompletableFuture<HttpResponse<String>> holder = Gate.hold(() -> get("/quote/acme?hold=true"));
        HttpResponse<String> refused = get("/quote/acme");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(refused.body()).contains("\"semaphore\":\"partner:acme\"");
        Gate.release();
        assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(lines(scrape(), "turnstile_observed_refusals_total")).isEmpty();
    }

    @Test
    void observeModeRunsCallsWithoutRedisButHealthStillSaysDown() throws Exception {
        this.app = start(
                WebApplicationType.SERVLET, Api.class, "turnstile.enforce=false", "spring.data.redis.port=1");
        assertThat(get("/quote/acme").statusCode()).isEqualTo(200);
        assertThat(get("/item/7").statusCode()).isEqualTo(200);
        HttpResponse<String> health = get("/actuator/health");
        assertThat(health.statusCode()).isEqualTo(503);
        assertThat(health.body()).containsPattern("\"turnstile\":\\{\"status\":\"DOWN\"");
        String metrics = scrape();
        assertThat(sample(metrics, "turnstile_observed_refusals_total",
                        "kind=\"semaphore\"", "name=\"partner:#account\"", "reason=\"unavailable\""))
                .isEqualTo(1);
        assertThat(sample(metrics, "turnstile_observed_refusals_total",
                        "kind=\"lock\"", "name=\"item:#id\"", "reason=\"unavailable\""))
                .isEqualTo(1);
        assertThat(sample(metrics, "turnstile_acquire_seconds_count", "name=\"item:#id\"", "outcome=\"unavailable\""))
                .as("the acquisition's own outcome is unchanged")
                .isEqualTo(1);
    }

    @Test
    void aNameThatMatchesNoGuardIsOneWarnAtStartup(CapturedOutput output) {
        this.app = start(
                WebApplicationType.SERVLET, Api.class, "turnstile.enforced-names=partner:#acount,item:#id");
        assertThat(output.getAll().lines().filter(line -> line.contains("turnstile.enforced-names")))
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .contains("WARN")
                        .contains("lists [partner:#acount], which no @DistributedLock or @Semaphore method is named"));
    }

    @Test
    void aNameInBothListsFailsTheStart() {
        SpringApplicationBuilder builder = builder(
                WebApplicationType.SERVLET,
                Api.class,
                "turnstile.enforced-names=partner:#account",
                "turnstile.observed-names=partner:#account");
        assertThat(catchThrowable(builder::run))
                .rootCause()
                .hasMessage("turnstile.enforced-names and turnstile.observed-names both list [partner:#account];"
                        + " list each name in one of them");
    }

    /** Calls {@code path} while another call of it holds its guard; returns the second's status. */
    private int secondCallWhileOneHolds(String path) throws Exception {
        CompletableFuture<HttpResponse<String>> holder = Gate.hold(() -> get(path + "?hold=true"));
        int status = get(path).statusCode();
        Gate.release();
        assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        return status;
    }

    private ConfigurableApplicationContext start(WebApplicationType type, Class<?> api, String... properties) {
        return builder(type, api, properties).run();
    }

    private static SpringApplicationBuilder builder(WebApplicationType type, Class<?> api, String... properties) {
        return new SpringApplicationBuilder(App.class, api)
                .web(type)
                .properties(
                        "server.port=0",
                        "spring.main.banner-mode=off",
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port(),
                        "spring.data.redis.timeout=500ms",
                        "management.health.redis.enabled=false",
                        "management.endpoints.web.exposure.include=health,prometheus",
                        "management.endpoint.health.show-components=always")
                .properties(properties);
    }

    private String scrape() {
        HttpResponse<String> scrape = get("/actuator/prometheus", "text/plain");
        assertThat(scrape.statusCode()).isEqualTo(200);
        return scrape.body();
    }

    private HttpResponse<String> get(String path) {
        return get(path, null);
    }

    private HttpResponse<String> get(String path, String accept) {
        String port = this.app.getEnvironment().getProperty("local.server.port");
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(20))
                .GET();
        if (accept != null) {
            request.header("Accept", accept);
        }
        try {
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The value of the one sample of {@code metric} whose labels contain every one of {@code labels}. */
    private static long sample(String scrape, String metric, String... labels) {
        List<String> matching = lines(scrape, metric).stream()
                .filter(line -> List.of(labels).stream().allMatch(line::contains))
                .toList();
        assertThat(matching).as(metric + " " + List.of(labels) + " in\n" + scrape).hasSize(1);
        Matcher value = Pattern.compile("} (\\S+)").matcher(matching.get(0));
        assertThat(value.find()).isTrue();
        return Math.round(Double.parseDouble(value.group(1)));
    }

    /** The cumulative count of the histogram bucket {@code le} (as the scrape writes it: 2.0) of {@code name}. */
    private static long bucket(String scrape, String metric, String name, String le) {
        return sample(scrape, metric, "name=\"" + name + "\"", "le=\"" + le + "\"");
    }

    private static List<String> lines(String scrape, String metric) {
        return scrape.lines().filter(line -> line.startsWith(metric + "{")).toList();
    }

    public static class Catalog {
        @Semaphore(key = "partner:#account", limit = 1)
        public String quote(String account, boolean hold) {
            Gate.pass(hold);
            return "quote for " + account;
        }

        @Semaphore(key = "partner:#account", limit = 1)
        public Mono<String> quoteLater(String account, boolean hold) {
            return Mono.fromCallable(() -> {
                        Gate.pass(hold);
                        return "quote for " + account;
                    })
                    .subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic());
        }

        @Semaphore(key = "later:#account", limit = 1)
        public CompletableFuture<String> later(String account, boolean hold) {
            return CompletableFuture.supplyAsync(() -> {
                Gate.pass(hold);
                return "later for " + account;
            });
        }

        @Semaphore(key = "export:#account", limit = 1)
        public String export(String account, boolean hold) {
            Gate.pass(hold);
            return "export for " + account;
        }

        @Semaphore(key = "report:#account", limit = 1, enforce = Enforce.OBSERVE)
        public String report(String account, boolean hold) {
            Gate.pass(hold);
            return "report for " + account;
        }

        @Semaphore(key = "audit:#account", limit = 1, enforce = Enforce.ENFORCE)
        public String audit(String account, boolean hold) {
            Gate.pass(hold);
            return "audit for " + account;
        }

        @DistributedLock(key = "item:#id", waitTime = "0s")
        public String update(String id, boolean hold) {
            Gate.pass(hold);
            return "updated " + id;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Catalog catalog() {
            return new Catalog();
        }
    }

    @RestController
    static class Api {
        private final Catalog catalog;

        Api(Catalog catalog) {
            this.catalog = catalog;
        }

        @GetMapping("/quote/{account}")
        String quote(
                @PathVariable("account") String account,
                @RequestParam(name = "hold", defaultValue = "false") boolean hold) {
            return this.catalog.quote(account, hold);
        }

        @GetMapping("/later/{account}")
        CompletableFuture<String> later(
                @PathVariable("account") String account,
                @RequestParam(name = "hold", defaultValue = "false") boolean hold) {
            return this.catalog.later(account, hold);
        }

        @GetMapping("/export/{account}")
        String export(
                @PathVariable("account") String account,
                @RequestParam(name = "hold", defaultValue = "false") boolean hold) {
            return this.catalog.export(account, hold);
        }

        @GetMapping("/report/{account}")
        String report(
                @PathVariable("account") String account,
                @RequestParam(name = "hold", defaultValue = "false") boolean hold) {
            return this.catalog.report(account, hold);
        }

        @GetMapping("/audit/{account}")
        String audit(
                @PathVariable("account") String account,
                @RequestParam(name = "hold", defaultValue = "false") boolean hold) {
            return this.catalog.audit(account, hold);
        }

        @GetMapping("/item/{id}")
        String item(@PathVariable("id") String id, @RequestParam(name = "hold", defaultValue = "false") boolean hold) {
            return this.catalog.update(id, hold);
        }
    }

    @RestController
    static class ReactiveApi {
        private final Catalog catalog;

        ReactiveApi(Catalog catalog) {
            this.catalog = catalog;
        }

        @GetMapping("/quote/{account}")
        Mono<String> quote(
                @PathVariable("account") String account,
                @RequestParam(name = "hold", defaultValue = "false") boolean hold) {
            return this.catalog.quoteLater(account, hold);
        }
    }
}
