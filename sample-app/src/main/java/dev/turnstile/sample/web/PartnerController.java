package dev.turnstile.sample.web;

import dev.turnstile.sample.partner.PartnerApi;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;

/**
 * The partner API behind its per-account cap, and a burst of calls to it. The page fires a burst
 * through here rather than from the browser, because a browser opens at most six connections to
 * one host and would queue the calls instead of firing them at once. One burst runs at a time (a
 * second is answered 429), so the endpoint cannot be turned against the server's own threads.
 */
@RestController
public class PartnerController {

    private static final int MAX_BURST = 20;
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    private final PartnerApi partner;
    private final JedisPool pool;
    private final Semaphore oneBurst = new Semaphore(1);
    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1)
            .build();

    public PartnerController(PartnerApi partner, JedisPool pool) {
        this.partner = partner;
        this.pool = pool;
    }

    /**
     * One call to the partner: a quote for {@code item}. Both ids follow the id rule (a 400 names the
     * one that does not, and echoes none of it).
     */
    @GetMapping("/accounts/{accountId}/partner-quote")
    public PartnerApi.Quote partnerQuote(@PathVariable String accountId, @RequestParam String item) {
        return this.partner.quote(Ids.require("accountId", accountId), Ids.require("item", item));
    }

    /**
     * What one call of a burst got back.
     *
     * @param call its number, from 1
     * @param status the HTTP status (504 when it had no answer in time)
     * @param retryAfter the {@code Retry-After} header of a refusal, else null
     * @param body the response body (a quote or a problem detail)
     */
    public record CallResult(int call, int status, String retryAfter, String body) {}

    /**
     * Fires {@code calls} real HTTP calls to {@code /accounts/{accountId}/partner-quote} at once and
     * returns what each got: with a cap of 5, five quotes and the rest refused with 429.
     */
    @PostMapping("/accounts/{accountId}/partner-burst")
    public ResponseEntity<?> burst(@PathVariable String accountId, @RequestParam(defaultValue = "8") String calls) {
        Ids.require("accountId", accountId);
        int count = Params.whole("calls", calls, 1, MAX_BURST);
        try (Jedis conn = this.pool.getResource()) {
            conn.ping(); // Redis down: 503 now, rather than eight 503s inside a 200
        }
        if (!this.oneBurst.tryAcquire()) {
            ProblemDetail busy = ProblemDetail.forStatusAndDetail(
                    HttpStatus.TOO_MANY_REQUESTS, "A burst is under way; fire again when it is done.");
            busy.setTitle("Too many requests");
            return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
                    .header(HttpHeaders.RETRY_AFTER, "2")
                    .body(busy);
        }
        try {
            List<CompletableFuture<CallResult>> answers = new ArrayList<>();
            for (int call = 1; call <= count; call++) {
                answers.add(send(call, quoteUri(accountId, call)));
            }
            return ResponseEntity.ok(
                    answers.stream().map(CompletableFuture::join).toList());
        } finally {
            this.oneBurst.release();
        }
    }

    private static URI quoteUri(String accountId, int call) {
        return ServletUriComponentsBuilder.fromCurrentContextPath()
                .path("/accounts/{accountId}/partner-quote")
                .queryParam("item", "burst-" + call)
                .buildAndExpand(accountId)
                .encode()
                .toUri();
    }

    private CompletableFuture<CallResult> send(int call, URI uri) {
        HttpRequest request =
                HttpRequest.newBuilder(uri).timeout(CALL_TIMEOUT).GET().build();
        return this.http
                .sendAsync(request, HttpResponse.BodyHandlers.ofString())
                .thenApply(response -> new CallResult(
                        call,
                        response.statusCode(),
                        response.headers().firstValue(HttpHeaders.RETRY_AFTER).orElse(null),
                        response.body()))
                .exceptionally(failure -> new CallResult(
                        call,
                        HttpStatus.GATEWAY_TIMEOUT.value(),
                        null,
                        "{\"title\":\"No answer\",\"detail\":\"The call had no answer in time.\"}"));
    }
}
