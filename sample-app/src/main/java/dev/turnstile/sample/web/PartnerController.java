package dev.turnstile.sample.web;

import dev.turnstile.sample.partner.PartnerApi;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.springframework.core.env.Environment;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The partner API behind its per-account cap, and a burst of calls to it: the page fires a burst
 * from here rather than from the browser, because a browser opens at most six connections to one
 * host and would queue the calls instead of firing them at once.
 */
@RestController
public class PartnerController {

    private static final int MAX_BURST = 20;

    private final PartnerApi partner;
    private final Environment environment;
    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1)
            .build();

    public PartnerController(PartnerApi partner, Environment environment) {
        this.partner = partner;
        this.environment = environment;
    }

    @GetMapping("/accounts/{accountId}/partner-quote")
    public PartnerApi.Quote partnerQuote(@PathVariable String accountId, @RequestParam String item) {
        return this.partner.quote(accountId, item);
    }

    /**
     * What one call of a burst got back.
     *
     * @param call its number, from 1
     * @param status the HTTP status
     * @param retryAfter the {@code Retry-After} header of a refusal, else null
     * @param body the response body (a quote or a problem detail)
     */
    public record CallResult(int call, int status, String retryAfter, String body) {}

    /**
     * Fires {@code calls} real HTTP calls to {@code /accounts/{accountId}/partner-quote} at once and
     * returns what each got: with a cap of 5, five quotes and the rest refused with 429.
     */
    @PostMapping("/accounts/{accountId}/partner-burst")
    public List<CallResult> burst(@PathVariable String accountId, @RequestParam(defaultValue = "8") int calls) {
        if (calls < 1 || calls > MAX_BURST) {
            throw new InvalidInputException("calls", "'calls' must be between 1 and " + MAX_BURST + ".");
        }
        String port = this.environment.getRequiredProperty("local.server.port");
        String account = URLEncoder.encode(accountId, StandardCharsets.UTF_8);
        List<CompletableFuture<CallResult>> answers = new ArrayList<>();
        ExecutorService callers = Executors.newFixedThreadPool(calls);
        try {
            for (int i = 1; i <= calls; i++) {
                int call = i;
                HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/accounts/"
                                + account + "/partner-quote?item=burst-" + call))
                        .timeout(Duration.ofSeconds(30))
                        .GET()
                        .build();
                answers.add(CompletableFuture.supplyAsync(() -> send(call, request), callers));
            }
            return answers.stream().map(CompletableFuture::join).toList();
        } finally {
            callers.shutdown();
        }
    }

    private CallResult send(int call, HttpRequest request) {
        try {
            HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
            return new CallResult(
                    call,
                    response.statusCode(),
                    response.headers().firstValue("Retry-After").orElse(null),
                    response.body());
        } catch (java.io.IOException e) {
            throw new IllegalStateException("Partner call " + call + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }
}
