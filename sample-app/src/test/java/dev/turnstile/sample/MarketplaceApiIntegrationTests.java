package dev.turnstile.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.sample.web.StreamController;
import dev.turnstile.test.redis.RedisServerExtension;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.assertj.core.api.AbstractStringAssert;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"turnstile.lock.wait-time=300ms", "sample.partner.latency=2500ms", "sample.stream.lease=3s"})
@ExtendWith(OutputCaptureExtension.class)
class MarketplaceApiIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @DynamicPropertySource
    static void redisProperties(DynamicPropertyRegistry registry) {
        TestRedis.use(registry, () -> redis.server().port());
    }

    private final HttpClient http = HttpClient.newHttpClient();

    private final ObjectMapper json = new ObjectMapper();

    @LocalServerPort
    int port;

    @Autowired
    Turnstile turnstile;

    @Autowired
    StreamController streams;

    @BeforeEach
    void users() throws Exception {
        post("/users", "{\"id\":\"ann\",\"name\":\"Ann\",\"funds\":100}");
        post("/users", "{\"id\":\"bob\",\"name\":\"Bob\",\"funds\":50}");
        post("/users/ann/inventory", "{\"itemId\":\"sword\"}");
    }

    @Test
    void listBrowseBuyAndSeeTheAccounts() throws Exception {
        for (String strategy : List.of("watch", "lock", "fine")) {
            post("/users/ann/inventory", "{\"itemId\":\"shield-" + strategy + "\"}");
            HttpResponse<String> listed = post(
                    "/market/listings?strategy=" + strategy,
                    "{\"itemId\":\"shield-" + strategy + "\",\"sellerId\":\"ann\",\"price\":10}");
            assertThat(listed.statusCode()).isEqualTo(201);
            assertThat(listed.body()).contains("\"strategy\":\"" + strategy + "\"", "\"outcome\":\"DONE\"");
        }
        assertThat(get("/market?limit=10").body()).contains("\"itemId\":\"shield-watch\"", "\"price\":10");
        for (String strategy : List.of("watch", "lock", "fine")) {
            HttpResponse<String> bought = post(
                    "/market/purchases?strategy=" + strategy,
                    "{\"buyerId\":\"bob\",\"itemId\":\"shield-" + strategy + "\",\"sellerId\":\"ann\",\"price\":10}");
            assertThat(bought.statusCode()).isEqualTo(201);
        }
        assertThat(get("/users/bob").body()).contains("\"funds\":20", "shield-fine", "shield-lock", "shield-watch");
        assertThat(get("/users/ann").body()).contains("\"funds\":130");
        assertThat(get("/market").body()).isEqualTo("[]");
    }

    @Test
    void refusedTradesAndUnknownUsersAreProblemDetails() throws Exception {
        HttpResponse<String> unknown = get("/users/nobody");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertProblem(unknown).contains("There is no user 'nobody'.");

        HttpResponse<String> missing =
                post("/market/listings", "{\"itemId\":\"axe\",\"sellerId\":\"ann\",\"price\":5}");
        assertThat(missing.statusCode()).isEqualTo(400);
        assertProblem(missing).contains("NOT_IN_INVENTORY");
        HttpResponse<String> notListed = post(
                "/market/purchases", "{\"buyerId\":\"bob\",\"itemId\":\"sword\",\"sellerId\":\"ann\",\"price\":5}");
        assertThat(notListed.statusCode()).isEqualTo(400);
        assertProblem(notListed).contains("NOT_LISTED");
        HttpResponse<String> noBuyer = post(
                "/market/purchases", "{\"buyerId\":\"zed\",\"itemId\":\"sword\",\"sellerId\":\"ann\",\"price\":5}");
        assertThat(noBuyer.statusCode()).isEqualTo(400);
        assertProblem(noBuyer).contains("\"field\":\"buyerId\"", "there is no user 'zed'");
        assertThat(get("/nowhere").statusCode()).isEqualTo(404);
        assertProblem(get("/nowhere"));
        HttpResponse<String> refusedByTomcat = get("/users/a%5Cb");
        assertThat(refusedByTomcat.statusCode()).isEqualTo(400);
        assertProblem(refusedByTomcat).contains("refused before it reached the marketplace", "an encoded /");
    }

    @Test
    void missingOrMalformedFieldsAreNamedWithTheirRule() throws Exception {
        Map<String, List<String>> cases = new LinkedHashMap<>();
        cases.put("/users|{\"id\":\"dan\"}", List.of("'funds' is required"));
        cases.put("/users|{\"id\":\"dan\",\"funds\":\"lots\"}", List.of("'funds' must be a whole number"));
        cases.put(
                "/users|{\"id\":\"dan\",\"funds\":-1}",
                List.of("'funds' is out of range: it must be from 0 to 1000000000."));
        cases.put("/users|{\"id\":\"dan\",\"funds\":1e30}", List.of("'funds' is out of range"));
        cases.put("/users|{\"id\":\"dan\",\"funds\":null}", List.of("'funds' is required."));
        cases.put("/users|{\"id\":\"dan\",\"funds\":1.5}", List.of("'funds' must be a whole number"));
        cases.put("/users|{\"id\":\"dan\",\"funds\":99999999999999999999}", List.of("'funds' is out of range"));
        cases.put("/users|{\"funds\":1}", List.of("'id' is required"));
        cases.put("/users|{\"id\":\"a/b\",\"funds\":1}", List.of("'id' must be 1 to 64 characters"));
        cases.put("/users|{\"id\":\"a.b\",\"funds\":1}", List.of("'id' must be 1 to 64 characters"));
        cases.put("/users|{\"id\":\"" + "x".repeat(10_000) + "\",\"funds\":1}", List.of("'id' must be 1 to 64"));
        cases.put("/users|{\"id\":", List.of("The request body is not valid JSON."));
        cases.put("/users|", List.of("The request needs a JSON body."));
        cases.put("/users/ann/inventory|{}", List.of("'itemId' is required"));
        cases.put("/market/listings|{\"sellerId\":\"ann\",\"price\":5}", List.of("'itemId' is required"));
        cases.put(
                "/market/listings|{\"itemId\":\"sword\",\"sellerId\":\"ann\",\"price\":-5}",
                List.of("'price' is out of range: it must be from 1 to 1000000000."));
        cases.put(
                "/market/listings|{\"itemId\":\"sword\",\"sellerId\":\"ann\",\"price\":null}",
                List.of("'price' is required."));
        cases.put(
                "/market/purchases|{\"buyerId\":\"bob\",\"sellerId\":\"ann\"}",
                List.of("'itemId' is required", "'price' is required"));
        cases.put(
                "/market/purchases?strategy=magic|{\"buyerId\":\"bob\",\"itemId\":\"sword\",\"sellerId\":\"ann\",\"price\":5}",
                List.of("'strategy' must be one of [watch, lock, fine]"));
        for (Map.Entry<String, List<String>> entry : cases.entrySet()) {
            String[] request = entry.getKey().split("\\|", 2);
            HttpResponse<String> answer = post(request[0], request[1]);
            assertThat(answer.statusCode()).as(entry.getKey()).isEqualTo(400);
            assertProblem(answer).as(entry.getKey()).contains(entry.getValue());
        }
        assertThat(get("/market?limit=0").body()).contains("'limit' is out of range: it must be from 1 to 1000.");
        assertThat(get("/market?limit=99999999999").body())
                .contains("'limit' is out of range: it must be from 1 to 1000.");
        for (String[] request : List.of(
                new String[] {"/market?limit=abc", "'limit' must be a whole number"},
                new String[] {"/accounts/acct-1/partner-quote", "'item' is required"},
                new String[] {"/accounts/a%20b/partner-quote?item=x", "'accountId' must be 1 to 64 characters"},
                new String[] {"/accounts/a.b/stream", "'accountId' must be 1 to 64 characters"})) {
            HttpResponse<String> answer = get(request[0]);
            assertThat(answer.statusCode()).as(request[0]).isEqualTo(400);
            assertProblem(answer).as(request[0]).contains(request[1], "\"errors\":[{\"field\":");
        }
    }

    @Test
    void idsInAPathFollowTheIdRuleAndNoAnswerEchoesMoreThanTheRuleAllows() throws Exception {
        for (String[] request : List.of(
                new String[] {"/users/a%20b", "'id' must be 1 to 64 characters"},
                new String[] {"/users/" + "y".repeat(5_000), "'id' must be 1 to 64 characters"},
                new String[] {"/accounts/" + "x".repeat(10_000) + "/partner-quote?item=x", "'accountId' must be 1 to 64"
                },
                new String[] {"/accounts/" + "x".repeat(10_000) + "/stream", "'accountId' must be 1 to 64"})) {
            HttpResponse<String> answer = get(request[0]);
            assertThat(answer.statusCode()).as(request[0]).isEqualTo(400);
            assertProblem(answer).as(request[0]).contains(request[1], "\"field\":");
            assertThat(answer.body())
                    .as("the body repeats no long id")
                    .doesNotContain("x".repeat(100), "y".repeat(100));
        }
        HttpResponse<String> nowhere = get("/nowhere" + "z".repeat(5_000));
        assertThat(nowhere.statusCode()).isEqualTo(404);
        assertProblem(nowhere).contains("Nothing is served at this path");
        assertThat(nowhere.body().length()).as(nowhere.body()).isLessThan(400);
        HttpResponse<String> huge = get("/users/" + "w".repeat(70_000));
        assertThat(huge.statusCode()).isEqualTo(400);
        assertProblem(huge)
                .contains("over the 64 KB the server reads", "Ids in a path are 1 to 64 characters")
                .doesNotContain("encoded /");
    }

    @Test
    void theBooksSceneIsLoadedOnRequestWithoutTouchingOtherUsers() throws Exception {
        HttpResponse<String> loaded = post("/example?scene=book", "");
        assertThat(loaded.statusCode()).isEqualTo(200);
        assertThat(loaded.body()).contains("\"title\":\"Redis in Action, 6.2\"");
        assertThat(get("/market").body())
                .isEqualTo("[{\"itemId\":\"ItemA\",\"sellerId\":\"4\",\"price\":35},"
                        + "{\"itemId\":\"ItemC\",\"sellerId\":\"7\",\"price\":48},"
                        + "{\"itemId\":\"ItemE\",\"sellerId\":\"2\",\"price\":60},"
                        + "{\"itemId\":\"ItemG\",\"sellerId\":\"3\",\"price\":73}]");
        assertThat(post(
                                "/market/purchases",
                                "{\"buyerId\":\"27\",\"itemId\":\"ItemA\",\"sellerId\":\"4\",\"price\":35}")
                        .statusCode())
                .isEqualTo(201);
        post("/example?scene=book", "");
        assertThat(get("/users/27").body()).contains("\"name\":\"Bill\"", "\"funds\":125");
        assertThat(this.json.readTree(get("/users/27").body()).get("inventory"))
                .extracting(JsonNode::asString)
                .containsExactlyInAnyOrder("ItemO", "ItemP", "ItemQ");
        assertThat(get("/market").body()).contains("\"itemId\":\"ItemA\",\"sellerId\":\"4\"");
        assertThat(get("/users/ann").body()).as("other users stay").contains("\"funds\":100", "sword");

        HttpResponse<String> unknown = post("/example?scene=moon", "");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertProblem(unknown).contains("'scene' must be street or book.");
    }

    /** The page's guided steps, in their order: each one works after the one before. */
    @Test
    void theMarketStreetsGuidedStepsWorkInOrder() throws Exception {
        assertThat(post("/example", "").statusCode()).isEqualTo(200);
        HttpResponse<String> lamp = post(
                "/market/purchases?strategy=fine",
                "{\"buyerId\":\"ben\",\"itemId\":\"lamp\",\"sellerId\":\"cara\",\"price\":25}");
        assertThat(lamp.statusCode()).as(lamp.body()).isEqualTo(201);
        JsonNode trade = this.json.readTree(lamp.body()).get("trade");
        assertThat(trade.has("request"))
                .as("what was asked stands in the trade itself")
                .isFalse();
        assertThat(List.of(
                        trade.get("action").asString(),
                        trade.get("who").asString(),
                        trade.get("strategy").asString()))
                .containsExactly("buy", "ben", "fine");
        assertThat(trade.get("locks").toString()).isEqualTo("[\"market:lamp.cara\",\"funds:ben\"]");
        assertThat(trade.get("waitedFor").size()).as("nobody held its locks").isZero();
        assertThat(trade.get("tokens").findValuesAsString("lock"))
                .containsExactlyInAnyOrder("market:lamp.cara", "funds:ben");

        HttpResponse<String> listed =
                post("/market/listings?strategy=fine", "{\"itemId\":\"guitar\",\"sellerId\":\"ann\",\"price\":90}");
        assertThat(listed.statusCode()).as(listed.body()).isEqualTo(201);
        HttpResponse<String> guitar = post(
                "/market/purchases?strategy=fine",
                "{\"buyerId\":\"ben\",\"itemId\":\"guitar\",\"sellerId\":\"ann\",\"price\":90}");
        assertThat(guitar.statusCode()).as(guitar.body()).isEqualTo(201);
        assertThat(get("/users/ann").body()).contains("\"funds\":210");
        assertThat(get("/users/ben").body()).contains("\"funds\":35");
        assertThat(get("/market").body()).contains("\"itemId\":\"teapot\",\"sellerId\":\"dev\",\"price\":30");
    }

    @Test
    void aPartnerQuoteChecksItsItemAndEchoesNoneOfABadOne() throws Exception {
        HttpResponse<String> bad = get("/accounts/acct-3/partner-quote?item=" + "x".repeat(5000));
        assertThat(bad.statusCode()).isEqualTo(400);
        assertProblem(bad).contains("'item' must be 1 to 64 characters");
        assertThat(bad.body()).doesNotContain("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    }

    @Test
    void theStartupLogSaysWhereToOpenThePageAndHealthIsUp(CapturedOutput output) throws Exception {
        assertThat(output.getAll()).contains("The marketplace is ready: open http://localhost:" + this.port + "/");
        HttpResponse<String> health = get("/actuator/health");
        assertThat(health.statusCode()).isEqualTo(200);
        JsonNode components = this.json.readTree(health.body()).get("components");
        assertThat(components.get("redis").get("status").asString()).isEqualTo("UP");
        assertThat(components.get("turnstile").get("status").asString()).isEqualTo("UP");
    }

    @Test
    void creatingAUserTwiceIsAConflictAndNeverOverwrites() throws Exception {
        HttpResponse<String> again = post("/users", "{\"id\":\"ann\",\"name\":\"Mallory\",\"funds\":1000000}");
        assertThat(again.statusCode()).isEqualTo(409);
        assertProblem(again).contains("There is already a user 'ann'.");
        assertThat(get("/users/ann").body()).contains("\"name\":\"Ann\"", "\"funds\":100");
    }

    @Test
    void fundsNeverGoNegativeAndAnItemIsNeverSoldTwice() throws Exception {
        post("/market/listings", "{\"itemId\":\"sword\",\"sellerId\":\"ann\",\"price\":40}");
        post("/users", "{\"id\":\"cat\",\"name\":\"Cat\",\"funds\":50}");
        List<CompletableFuture<HttpResponse<String>>> buyers = new ArrayList<>();
        for (String buyer : List.of("bob", "cat")) {
            buyers.add(this.http.sendAsync(
                    request(
                            "/market/purchases",
                            "{\"buyerId\":\"" + buyer + "\",\"itemId\":\"sword\",\"sellerId\":\"ann\",\"price\":40}"),
                    HttpResponse.BodyHandlers.ofString()));
        }
        long done = buyers.stream()
                .map(CompletableFuture::join)
                .filter(response -> response.statusCode() == 201)
                .count();
        assertThat(done).isEqualTo(1);
        assertThat(get("/users/ann").body()).contains("\"funds\":140");
        post("/users/ann/inventory", "{\"itemId\":\"crown\"}");
        post("/market/listings", "{\"itemId\":\"crown\",\"sellerId\":\"ann\",\"price\":60}");
        HttpResponse<String> poor = post(
                "/market/purchases", "{\"buyerId\":\"cat\",\"itemId\":\"crown\",\"sellerId\":\"ann\",\"price\":60}");
        assertThat(poor.statusCode()).isEqualTo(400);
        assertThat(poor.body()).contains("INSUFFICIENT_FUNDS");
        assertThat(get("/users/cat").body()).doesNotContain("\"funds\":-");
    }

    @Test
    void lockNotAcquiredInTimeIs409() throws Exception {
        post("/market/listings", "{\"itemId\":\"sword\",\"sellerId\":\"ann\",\"price\":40}");
        try (Lease held = this.turnstile.lock("market:sword.ann").acquire(Duration.ZERO, null)) {
            HttpResponse<String> busy = post(
                    "/market/purchases?strategy=fine",
                    "{\"buyerId\":\"bob\",\"itemId\":\"sword\",\"sellerId\":\"ann\",\"price\":40}");
            assertThat(busy.statusCode()).isEqualTo(409);
            assertThat(busy.body()).contains("\"lock\":\"market:sword.ann,funds:bob\"");
        }
    }

    @Test
    void sixthConcurrentPartnerCallOfAnAccountIs429AndOtherAccountsAreUnaffected() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            calls.add(this.http.sendAsync(
                    getRequest("/accounts/acct-1/partner-quote?item=i" + i), HttpResponse.BodyHandlers.ofString()));
        }
        await().atMost(Duration.ofSeconds(5))
                .until(() -> this.turnstile.semaphore("account:acct-1", 5).availablePermits() == 0);
        HttpResponse<String> sixth = get("/accounts/acct-1/partner-quote?item=late");
        assertThat(sixth.statusCode()).isEqualTo(429);
        assertThat(sixth.headers().firstValue("Retry-After"))
                .as("not before a call in flight (2.5 s) can have ended")
                .contains("3");
        assertThat(sixth.body()).contains("All 5 permits", "\"semaphore\":\"account:acct-1\"");
        assertThat(get("/accounts/acct-2/partner-quote?item=x").statusCode()).isEqualTo(200);
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            assertThat(call.join().statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aBurstOfEightPartnerCallsGetsFiveQuotesAndThreeRefusalsWhileHeldShowsTheFivePermits() throws Exception {
        CompletableFuture<HttpResponse<String>> burst = this.http.sendAsync(
                request("/accounts/acct-9/partner-burst?calls=8", ""), HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(5))
                .until(() -> this.turnstile.semaphore("account:acct-9", 5).availablePermits() == 0);
        HttpResponse<String> held = get("/held");
        assertThat(held.statusCode()).isEqualTo(200);
        JsonNode semaphore = this.json.readTree(held.body()).get("semaphores").get(0);
        assertThat(semaphore.get("name").asString()).isEqualTo("account:acct-9");
        assertThat(semaphore.get("permits")).hasSize(5).allSatisfy(permit -> {
            assertThat(permit.get("holder").asString()).matches("[0-9a-f-]{36}:\\d+");
            assertThat(permit.get("leftMillis").asLong()).isPositive();
        });
        HttpResponse<String> second = post("/accounts/acct-10/partner-burst?calls=8", "");
        assertThat(second.statusCode()).as("one burst at a time").isEqualTo(429);
        assertThat(second.headers().firstValue("Retry-After")).isPresent();
        assertProblem(second).contains("A burst is under way");

        JsonNode calls = this.json.readTree(burst.join().body());
        assertThat(calls).hasSize(8);
        List<JsonNode> refused = new ArrayList<>();
        calls.forEach(call -> {
            if (call.get("status").asInt() != 200) {
                refused.add(call);
            }
        });
        assertThat(refused).hasSize(3).allSatisfy(call -> {
            assertThat(call.get("status").asInt()).isEqualTo(429);
            assertThat(call.get("retryAfter").asString())
                    .as("the 2.5 s of a call in flight, rounded up")
                    .isEqualTo("3");
            assertThat(call.get("body").asString()).contains("All 5 permits of 'account:acct-9' are in use");
        });
        assertThat(get("/accounts/acct-9/partner-burst?calls=21").statusCode())
                .as("GET is not the burst's method")
                .isEqualTo(405);
        assertThat(post("/accounts/acct-9/partner-burst?calls=21", "").body())
                .contains("'calls' is out of range: it must be from 1 to 20.");
    }

    @Test
    void aHeadRequestOnAStreamTakesNoSlot() throws Exception {
        for (int i = 0; i < 3; i++) {
            HttpResponse<Void> head = this.http.send(
                    HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + "/accounts/peeker/stream"))
                            .method("HEAD", HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
            assertThat(head.statusCode()).isEqualTo(200);
        }
        assertThat(this.streams.slots("peeker").availablePermits()).isEqualTo(2);
    }

    @Test
    void eachOpenStreamHoldsASlotAndAClosedStreamFreesIt() throws Exception {
        InputStream first = stream("/accounts/viewer/stream");
        InputStream second = stream("/accounts/viewer/stream");
        await().atMost(Duration.ofSeconds(5))
                .until(() -> this.streams.slots("viewer").availablePermits() == 0);
        HttpResponse<String> third = get("/accounts/viewer/stream");
        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(third.headers().firstValue("Retry-After"))
                .as("a slot frees when a stream closes, not after a while")
                .isEmpty();
        assertProblem(third).contains("close one of the account's streams").doesNotContainIgnoringCase("retry");
        assertThat(first.read()).as("the stream sends events").isPositive();
        // Held across several lease times: the stream refreshes its permit.
        await().pollDelay(Duration.ofSeconds(4))
                .atMost(Duration.ofSeconds(6))
                .until(() -> this.streams.slots("viewer").availablePermits() == 0);
        first.close();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> this.streams.slots("viewer").availablePermits() == 1);
        second.close();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> this.streams.slots("viewer").availablePermits() == 2);
    }

    /** A problem detail that leaks nothing internal: no Redis key or error, no key template, no class. */
    static AbstractStringAssert<?> assertProblem(HttpResponse<String> answer) {
        assertThat(answer.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).contains("application/problem+json"));
        return assertThat(answer.body())
                .doesNotContainIgnoringCase("redis")
                .doesNotContain("users:", "inventory:", "#itemId", "Exception", "null value", "jackson");
    }

    private InputStream stream(String path) throws Exception {
        HttpResponse<InputStream> response =
                this.http.send(getRequest(path), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    private HttpResponse<String> post(String path, String json) throws Exception {
        return this.http.send(request(path, json), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return this.http.send(getRequest(path), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest request(String path, String json) {
        return HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();
    }

    private HttpRequest getRequest(String path) {
        return HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
                .GET()
                .build();
    }
}
