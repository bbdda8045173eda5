package dev.turnstile.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.annotation.OnFailure;
import dev.turnstile.annotation.Semaphore;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.RedisServerExtension;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * What a production web application meets, in a real server on a random port with the actuator and
 * Prometheus: one {@code turnstile.acquire} meter with its outcome in the scrape, the health switch
 * and health groups, error pages for browsers, a lock taken away during a call, the endpoint
 * without Redis, and the start without Redis.
 */
@ExtendWith(OutputCaptureExtension.class)
class ProductionWebApplicationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static final String BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

    private ConfigurableApplicationContext app;

    @AfterEach
    void stop() {
        Gate.release();
        if (this.app != null) {
            this.app.close();
        }
    }

    // 1. Metrics

    @Test
    void prometheusScrapesOneAcquireTimerWithItsOutcomeAndNothingCountsTwice() throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class);
        List<String> failures = new CopyOnWriteArrayList<>();
        this.app.getBeansOfType(MeterRegistry.class).values().forEach(registry -> registry.config()
                .onMeterRegistrationFailed((id, reason) -> failures.add(id.getName() + ": " + reason)));
        for (int i = 0; i < 3; i++) {
            assertThat(get("/item/" + i).statusCode()).isEqualTo(200);
        }
        CompletableFuture<HttpResponse<String>> holder = Gate.hold(() -> get("/item/42?hold=true"));
        assertThat(get("/item/42").statusCode()).isEqualTo(409);
        Gate.release();
        assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        holder = Gate.hold(() -> get("/quote/acme?hold=true"));
        assertThat(get("/quote/acme").statusCode()).isEqualTo(429);
        Gate.release();
        assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

        HttpResponse<String> scrape = get("/actuator/prometheus", "text/plain");
        assertThat(scrape.statusCode()).isEqualTo(200);
        String metrics = scrape.body();
        assertThat(sample(metrics, "turnstile_acquire_seconds_count", "name=\"item:#id\"", "outcome=\"acquired\""))
                .isEqualTo(4);
        assertThat(sample(metrics, "turnstile_acquire_seconds_count", "name=\"item:#id\"", "outcome=\"busy\""))
                .isEqualTo(1);
        assertThat(sample(metrics, "turnstile_acquire_seconds_count", "name=\"partner:#account\"", "outcome=\"full\""))
                .isEqualTo(1);
        assertThat(lines(metrics, "turnstile_acquire_seconds_count"))
                .as("one set of tag keys: the outcome and the observation's error, on every series")
                .allMatch(line -> line.contains("outcome=\"") && line.contains("error=\"") && line.contains("kind=\""));
        assertThat(failures).as("no meter failed to register").isEmpty();

        assertThat(metrics.lines().filter(line -> line.startsWith("# HELP turnstile_acquire_seconds ")))
                .singleElement()
                .satisfies(help -> assertThat(help).contains("waited for its lock or permit"));

        HttpResponse<String> timer = get("/actuator/metrics/turnstile.acquire");
        assertThat(timer.statusCode()).isEqualTo(200);
        assertThat(timer.body())
                .as("each of the 7 acquisitions counted once")
                .containsPattern("\\{\"statistic\":\"COUNT\",\"value\":7(\\.0)?}");
    }

    @Test
    void observedRefusalsAreCountedOnceAsObservedAndListedAtStartup(CapturedOutput output) throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class, "turnstile.enforce=false");
        assertThat(output.getAll().lines().filter(line -> line.contains("only observe")))
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .contains("INFO")
                        .contains("semaphore partner:#account (Catalog.quote(String, boolean))")
                        .contains("lock item:#id (Catalog.update(String, boolean))"));
        CompletableFuture<HttpResponse<String>> holder = Gate.hold(() -> get("/quote/acme?hold=true"));
        assertThat(get("/quote/acme").statusCode()).as("it only observes: the call runs").isEqualTo(200);
        Gate.release();
        assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        holder = Gate.hold(() -> get("/item/42?hold=true"));
        assertThat(get("/item/42").statusCode()).isEqualTo(200);
        Gate.release();
        assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

        String metrics = get("/actuator/prometheus", "text/plain").body();
        assertThat(sample(metrics, "turnstile_observed_refusals_total", "name=\"partner:#account\"", "reason=\"full\""))
                .isEqualTo(1);
        assertThat(sample(metrics, "turnstile_observed_refusals_total", "name=\"item:#id\"", "reason=\"busy\""))
                .isEqualTo(1);
        assertThat(lines(metrics, "turnstile_acquire_seconds_count"))
                .as("no acquisition counted as refused")
                .noneMatch(line -> line.contains("outcome=\"full\"") || line.contains("outcome=\"busy\""));
        assertThat(sample(metrics, "turnstile_acquire_seconds_count", "name=\"partner:#account\"", "outcome=\"observed\""))
                .isEqualTo(1);
        assertThat(lines(metrics, "turnstile_semaphore_rejections_total"))
                .as("nothing was rejected")
                .isEmpty();
        assertThat(lines(metrics, "turnstile_lock_wait_seconds_count"))
                .noneMatch(line -> line.contains("outcome=\"busy\""));
    }

    // 2. Health

    @Test
    void theHealthSwitchTurnsTheIndicatorOff() throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class, "management.health.turnstile.enabled=false");
        assertThat(this.app.containsBean("turnstileHealthIndicator")).isFalse();
        HttpResponse<String> health = get("/actuator/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"ping\"").doesNotContain("turnstile");
    }

    @Test
    void turningTurnstileOffKeepsAnAppWhoseReadinessGroupNamesItStarting() throws Exception {
        healthGroupNamingTurnstileStartsWith("turnstile.enabled=false");
    }

    @Test
    void turningTheHealthIndicatorOffKeepsAnAppWhoseReadinessGroupNamesItStarting() throws Exception {
        healthGroupNamingTurnstileStartsWith("management.health.turnstile.enabled=false");
    }

    private void healthGroupNamingTurnstileStartsWith(String switchedOff) throws Exception {
        this.app = start(
                WebApplicationType.SERVLET,
                Api.class,
                switchedOff,
                "management.endpoint.health.probes.enabled=true",
                "management.endpoint.health.group.readiness.include=readinessState,turnstile",
                "management.endpoint.health.group.readiness.show-details=always");
        HttpResponse<String> readiness = get("/actuator/health/readiness");
        assertThat(readiness.statusCode()).isEqualTo(200);
        assertThat(readiness.body())
                .contains("\"status\":\"UP\"")
                .contains("\"turnstile\":{")
                .contains("\"switchedOff\":\"" + switchedOff + "\"")
                .doesNotContain("DOWN");
    }

    @Test
    void redisIsInReadinessNotInLivenessAndTheDetailSaysWhatIsDown() throws Exception {
        this.app = start(
                WebApplicationType.SERVLET,
                Api.class,
                "spring.data.redis.port=1",
                "management.endpoint.health.probes.enabled=true",
                "management.endpoint.health.group.readiness.include=readinessState,turnstile",
                "management.endpoint.health.group.readiness.show-details=always");
        HttpResponse<String> readiness = get("/actuator/health/readiness");
        assertThat(readiness.statusCode()).isEqualTo(503);
        assertThat(readiness.body())
                .containsPattern("\"turnstile\":\\{.*\"status\":\"DOWN\"")
                .contains("\"reason\":\"Redis unavailable while trying to ping Redis: Failed to connect to 127.0.0.1:1")
                .as("said once, under reason, with one period")
                .doesNotContain("\"error\"")
                .doesNotContain("..");
        HttpResponse<String> liveness = get("/actuator/health/liveness");
        assertThat(liveness.statusCode()).isEqualTo(200);
        assertThat(liveness.body()).contains("\"status\":\"UP\"").doesNotContain("turnstile");
    }

    // 3. Browsers

    @Test
    void aBrowserGetsTheErrorPageWithTheStatusAndRetryAfterInSpringMvc() throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class);
        browsersGetErrorPagesApiClientsProblemDetails();
    }

    @Test
    void aBrowserGetsTheErrorPageWithTheStatusAndRetryAfterInWebFlux() throws Exception {
        this.app = start(WebApplicationType.REACTIVE, ReactiveApi.class);
        browsersGetErrorPagesApiClientsProblemDetails();
    }

    private void browsersGetErrorPagesApiClientsProblemDetails() throws Exception {
        CompletableFuture<HttpResponse<String>> holder = Gate.hold(() -> get("/quote/acme?hold=true"));
        HttpResponse<String> page = get("/quote/acme", BROWSER);
        assertThat(page.statusCode()).isEqualTo(429);
        assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type)
                .startsWith("text/html"));
        assertThat(page.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(page.body()).contains("Whitelabel Error Page").doesNotContain("\"status\":429");
        HttpResponse<String> api = get("/quote/acme", "application/json");
        assertThat(api.statusCode()).isEqualTo(429);
        assertThat(api.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(api.body()).contains("\"semaphore\":\"partner:acme\"");
        Gate.release();
        assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

        holder = Gate.hold(() -> get("/item/42?hold=true"));
        HttpResponse<String> busyPage = get("/item/42", BROWSER);
        assertThat(busyPage.statusCode()).isEqualTo(409);
        assertThat(busyPage.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type)
                .startsWith("text/html"));
        assertThat(busyPage.headers().firstValue("Retry-After")).hasValue("2");
        HttpResponse<String> busy = get("/item/42");
        assertThat(busy.statusCode()).isEqualTo(409);
        assertThat(busy.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(busy.headers().firstValue("Retry-After")).as("a busy lock says when to retry").hasValue("2");
        Gate.release();
        assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    @Test
    void aBrowserGets503PageWhenRedisIsDown() throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class, "spring.data.redis.port=1");
        HttpResponse<String> page = get("/item/7", BROWSER);
        assertThat(page.statusCode()).isEqualTo(503);
        assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type)
                .startsWith("text/html"));
        assertThat(page.headers().firstValue("Retry-After")).hasValue("2");
        HttpResponse<String> api = get("/item/7", "application/json");
        assertThat(api.statusCode()).isEqualTo(503);
        assertThat(api.body())
                .as("titled as the endpoint titles its 503")
                .contains("\"title\":\"Service Unavailable\"");
    }

    // 4. A lock taken away during a call

    @Test
    void aLockForceReleasedDuringACallIsLoggedAtWarnAndCounted(CapturedOutput output) throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class, "turnstile.endpoint.force-release=true");
        HttpResponse<String> answer = forceReleasedWhileRunning("/item/42?hold=true");
        assertThat(answer.statusCode()).as("on-lease-lost=log: the call returns").isEqualTo(200);
        assertThat(lostLines(output, "item:42")).singleElement().satisfies(line -> assertThat(line)
                .contains("WARN")
                .contains("dev.turnstile.lease")
                .contains("released by an operator (FORCE_RELEASED)"));
        assertThat(methodLines(output, "item:42"))
                .as("one line naming the lock, the method and this node, from a logger users look for")
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .contains("WARN")
                        .contains("dev.turnstile.lease")
                        .contains("Catalog.update(String, boolean)")
                        .contains("on node ")
                        .contains("(pid " + ProcessHandle.current().pid() + ")")
                        .contains("released by an operator")
                        .contains("work it commits may not have been exclusive"));
        assertThat(output.getAll()).doesNotContain("ManagedLease");
        assertThat(sample(get("/actuator/prometheus", "text/plain").body(), "turnstile_lease_lost_total",
                        "kind=\"lock\"", "reason=\"force_released\""))
                .isEqualTo(1);
    }

    @Test
    void aLockForceReleasedDuringACallFailsItWithTheRollbackPolicy(CapturedOutput output) throws Exception {
        this.app = start(
                WebApplicationType.SERVLET,
                Api.class,
                "turnstile.endpoint.force-release=true",
                "turnstile.lock.on-lease-lost=rollback");
        HttpResponse<String> answer = forceReleasedWhileRunning("/item/42?hold=true");
        assertThat(answer.statusCode()).isEqualTo(409);
        assertThat(answer.body())
                .contains("\"lock\":\"item:42\"")
                .contains("The lock 'item:42' was released by an operator before the request finished")
                .contains("its work may not have been exclusive")
                .contains("\"reason\":\"force_released\"")
                .contains("\"rolledBack\":false");
        assertThat(lostLines(output, "item:42")).hasSize(1);
    }

    @Test
    void aTransactionConfirmsItsLockBeforeCommitAndRollsBackWhenItWasTakenAway(CapturedOutput output)
            throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class, "turnstile.endpoint.force-release=true");
        Transactions transactions = this.app.getBean(Transactions.class);
        assertThat(get("/order/1").statusCode()).isEqualTo(200);
        assertThat(transactions.events).containsExactly("begin", "commit");
        transactions.events.clear();

        HttpResponse<String> answer = forceReleasedWhileRunning("/order/42?hold=true");
        assertThat(answer.statusCode()).isEqualTo(409);
        assertThat(answer.body())
                .contains("\"lock\":\"order:42\"")
                .contains("The lock 'order:42' was released by an operator before the request finished; its"
                        + " changes were rolled back and did not take effect")
                .contains("\"reason\":\"force_released\"")
                .contains("\"rolledBack\":true")
                .doesNotContain("may not have been exclusive");
        assertThat(transactions.events).as("the commit was refused").containsExactly("begin", "rollback");
        assertThat(lostLines(output, "order:42")).hasSize(1);
    }

    /** Runs {@code path} while an operator force-releases its lock through the endpoint. */
    private HttpResponse<String> forceReleasedWhileRunning(String path) throws Exception {
        String name = path.startsWith("/order/") ? "order:42" : "item:42";
        CompletableFuture<HttpResponse<String>> holder = Gate.hold(() -> get(path));
        HttpResponse<String> released = post("/actuator/turnstile", "{\"name\":\"" + name + "\"}");
        assertThat(released.statusCode()).isEqualTo(200);
        assertThat(released.body()).contains("\"released\":[\"" + name + "\"]");
        Gate.release();
        return holder.get(10, TimeUnit.SECONDS);
    }

    private static List<String> methodLines(CapturedOutput output, String name) {
        return output.getAll().lines()
                .filter(line -> line.contains("Lock '" + name + "' of "))
                .toList();
    }

    private static List<String> lostLines(CapturedOutput output, String name) {
        return output.getAll().lines()
                .filter(line -> line.contains("Lost lock '" + name + "'"))
                .toList();
    }

    // 5. The endpoint

    @Test
    void theEndpointWithoutRedisAnswers503InOneLogLine(CapturedOutput output) throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class, "spring.data.redis.port=1");
        int before = output.getAll().length();
        HttpResponse<String> report = get("/actuator/turnstile");
        assertThat(report.statusCode()).isEqualTo(503);
        assertThat(report.body())
                .contains("\"status\":503")
                .contains("\"title\":\"Service Unavailable\"")
                .doesNotContain("Jedis")
                .doesNotContain("Exception");
        String logged = output.getAll().substring(before);
        assertThat(logged).doesNotContain("\tat ");
        assertThat(logged.lines().filter(line -> line.contains("WARN") || line.contains("ERROR")))
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .contains("WARN")
                        .contains("turnstile endpoint could not read what Redis holds"));
    }

    @Test
    void forceReleaseIsOffUnlessEnabled() throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class);
        CompletableFuture<HttpResponse<String>> holder = Gate.hold(() -> get("/item/42?hold=true"));
        HttpResponse<String> refused = post("/actuator/turnstile", "{\"name\":\"item:42\"}");
        assertThat(refused.statusCode()).isEqualTo(405);
        assertThat(this.app.getBean(Turnstile.class).lock("item:42").isLocked()).isTrue();
        assertThat(get("/actuator/turnstile").body()).contains("\"name\":\"item:42\"");
        Gate.release();
        assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    // 6. Startup

    @Test
    void anUnreachableRedisAtStartupIsOneWarnNamingHostAndPort(CapturedOutput output) {
        this.app = start(WebApplicationType.SERVLET, Api.class, "spring.data.redis.port=1");
        Pattern address = Pattern.compile("127\\.0\\.0\\.1:1(?!\\d)");
        assertThat(output.getAll().lines().filter(line -> address.matcher(line).find()))
                .singleElement()
                .satisfies(line -> assertThat(line).contains("WARN").contains("did not answer at startup"));
        assertThat(output.getAll()).doesNotContain("\tat redis.clients");
    }

    @Test
    void holdAtLeastWithoutAWaitTimeDoesNotWait() throws Exception {
        this.app = start(WebApplicationType.SERVLET, Api.class);
        Reports reports = this.app.getBean(Reports.class);
        assertThat(reports.daily()).isEqualTo("ran");
        long start = System.nanoTime();
        assertThat(reports.daily()).as("skipped: the hold keeps the lock").isNull();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    private ConfigurableApplicationContext start(WebApplicationType type, Class<?> api, String... properties) {
        SpringApplicationBuilder builder = new SpringApplicationBuilder(App.class, api)
                .web(type)
                .properties(
                        "server.port=0",
                        "spring.main.banner-mode=off",
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port(),
                        "spring.data.redis.timeout=500ms",
                        "turnstile.web.retry-after=1500ms",
                        "management.health.redis.enabled=false",
                        "management.endpoints.web.exposure.include=health,metrics,prometheus,turnstile",
                        "management.endpoint.health.show-components=always")
                .properties(properties);
        return builder.run();
    }

    private HttpResponse<String> get(String path) {
        return get(path, null);
    }

    private HttpResponse<String> get(String path, String accept) {
        HttpRequest.Builder request = request(path).GET();
        if (accept != null) {
            request.header("Accept", accept);
        }
        return send(request.build());
    }

    private HttpResponse<String> post(String path, String json) {
        return send(request(path)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build());
    }

    private HttpRequest.Builder request(String path) {
        String port = this.app.getEnvironment().getProperty("local.server.port");
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(20));
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
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

    private static List<String> lines(String scrape, String metric) {
        return scrape.lines().filter(line -> line.startsWith(metric + "{")).toList();
    }

    public static class Catalog {
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

        @DistributedLock(key = "order:#id", waitTime = "0s", confirmBeforeCommit = true)
        @Transactional
        public String place(String id, boolean hold) {
            Gate.pass(hold);
            return "placed " + id;
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

    public static class Reports {
        @DistributedLock(key = "report:daily", holdAtLeast = "30s", onFailure = OnFailure.SKIP)
        public String daily() {
            return "ran";
        }
    }

    /** A transaction manager that records what it did. */
    static final class Transactions extends AbstractPlatformTransactionManager {

        private static final long serialVersionUID = 1L;

        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
            this.events.add("begin");
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            this.events.add("commit");
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
            this.events.add("rollback");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Catalog catalog() {
            return new Catalog();
        }

        @Bean
        Reports reports() {
            return new Reports();
        }

        @Bean
        Transactions transactionManager() {
            return new Transactions();
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

        @GetMapping("/item/{id}")
        String item(@PathVariable("id") String id, @RequestParam(name = "hold", defaultValue = "false") boolean hold) {
            return this.catalog.update(id, hold);
        }

        @GetMapping("/order/{id}")
        String order(@PathVariable("id") String id, @RequestParam(name = "hold", defaultValue = "false") boolean hold) {
            return this.catalog.place(id, hold);
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

        @GetMapping("/item/{id}")
        Mono<String> item(
                @PathVariable("id") String id, @RequestParam(name = "hold", defaultValue = "false") boolean hold) {
            return this.catalog.updateLater(id, hold);
        }
    }
}
