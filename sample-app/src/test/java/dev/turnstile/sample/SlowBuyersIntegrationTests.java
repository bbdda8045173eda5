package dev.turnstile.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.test.redis.RedisServerExtension;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Buyers that wait for a lock. Fifty buyers of one listing at once, each a slow trade that holds its locks 3 s: with a pool of
 * only 4 connections to the marketplace's Redis, every buyer still gets an answer about the
 * listing (one 201, the rest 400 "sold"), never a 503, because a purchase takes a connection only
 * once it holds its locks, and only while it talks to Redis. (Before, each buyer took a connection
 * before waiting for the lock, the pool ran dry, and Redis was reported unavailable while it was up.)
 * And the page's race of two buyers, as the lock log tells it.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.data.redis.jedis.pool.max-active=4",
            "sample.trade.slow=3s",
            "turnstile.lock.wait-time=20s",
            "sample.example.load-on-start=false"
        })
class SlowBuyersIntegrationTests {

    private static final int BUYERS = 50;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @DynamicPropertySource
    static void redisProperties(DynamicPropertyRegistry registry) {
        TestRedis.use(registry, () -> redis.server().port());
    }

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private final ObjectMapper json = new ObjectMapper();

    private final ExecutorService threads = Executors.newFixedThreadPool(BUYERS);

    @LocalServerPort
    int port;

    @AfterEach
    void stopThreads() {
        this.threads.shutdownNow();
    }

    @ParameterizedTest(name = "strategy {0}")
    @ValueSource(strings = {"fine", "lock"})
    void fiftySlowBuyersOfOneListingGetOneSaleAndNoFalseRedisDown(String strategy) throws Exception {
        String seller = "seller-" + strategy;
        String item = "lamp-" + strategy;
        assertThat(post("/users", "{\"id\":\"" + seller + "\",\"funds\":0}")).isEqualTo(201);
        assertThat(post("/users/" + seller + "/inventory", "{\"itemId\":\"" + item + "\"}"))
                .isEqualTo(201);
        assertThat(post(
                        "/market/listings?strategy=" + strategy,
                        "{\"itemId\":\"" + item + "\",\"sellerId\":\"" + seller + "\",\"price\":10}"))
                .isEqualTo(201);
        for (int i = 0; i < BUYERS; i++) {
            assertThat(post("/users", "{\"id\":\"buyer-" + strategy + "-" + i + "\",\"funds\":100}"))
                    .isEqualTo(201);
        }

        CyclicBarrier together = new CyclicBarrier(BUYERS);
        List<CompletableFuture<Integer>> answers = new ArrayList<>();
        for (int i = 0; i < BUYERS; i++) {
            String body = "{\"buyerId\":\"buyer-" + strategy + "-" + i + "\",\"itemId\":\"" + item
                    + "\",\"sellerId\":\"" + seller + "\",\"price\":10}";
            answers.add(CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            together.await();
                            return post("/market/purchases?strategy=" + strategy + "&slow=true", body);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    this.threads));
        }
        Map<Integer, Long> statuses = answers.stream()
                .map(CompletableFuture::join)
                .collect(Collectors.groupingBy(Function.identity(), TreeMap::new, Collectors.counting()));

        assertThat(statuses)
                .as("HTTP status -> how many of %d buyers got it", BUYERS)
                .containsExactlyEntriesOf(new TreeMap<>(Map.of(201, 1L, 400, (long) BUYERS - 1)));
    }

    /**
     * The page's race: the second buyer waits for the first's lock on the listing, named as the
     * annotation resolves it (also while it waits), and its token on that lock is the larger; the
     * first got its locks at once, so it is not said to have waited.
     */
    @Test
    void aRaceShowsWhoWaitedForWhichLockByNameHowLongAndTheTokensInOrder() throws Exception {
        assertThat(post("/users", "{\"id\":\"tea-seller\",\"funds\":0}")).isEqualTo(201);
        assertThat(post("/users/tea-seller/inventory", "{\"itemId\":\"teapot\"}"))
                .isEqualTo(201);
        assertThat(post("/market/listings", "{\"itemId\":\"teapot\",\"sellerId\":\"tea-seller\",\"price\":30}"))
                .isEqualTo(201);
        assertThat(post("/users", "{\"id\":\"first\",\"funds\":100}")).isEqualTo(201);
        assertThat(post("/users", "{\"id\":\"second\",\"funds\":100}")).isEqualTo(201);

        CompletableFuture<HttpResponse<String>> race = this.http.sendAsync(
                request(
                        "/market/races?strategy=fine",
                        "{\"itemId\":\"teapot\",\"sellerId\":\"tea-seller\",\"price\":30,"
                                + "\"first\":\"first\",\"second\":\"second\"}"),
                HttpResponse.BodyHandlers.ofString());
        JsonNode waiting = await().atMost(Duration.ofSeconds(10))
                .until(
                        () -> StreamSupport.stream(
                                        this.json.readTree(get("/trades")).spliterator(), false)
                                .filter(trade -> trade.get("who").asString().equals("second")
                                        && trade.get("state").asString().equals("waiting"))
                                .findFirst()
                                .orElse(null),
                        trade -> trade != null);
        assertThat(waiting.get("locks").toString())
                .as("the locks it waits for, by name, while it waits")
                .isEqualTo("[\"market:teapot.tea-seller\",\"funds:second\"]");

        HttpResponse<String> answer = race.get(60, TimeUnit.SECONDS);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonNode runners = this.json.readTree(answer.body()).get("runners");
        JsonNode first = runners.get(0);
        JsonNode second = runners.get(1);
        assertThat(first.get("status").asInt()).isEqualTo(201);
        assertThat(second.get("status").asInt()).isEqualTo(400);
        assertThat(second.get("detail").asString()).isEqualTo("The item is not on the market at this price.");
        JsonNode winner = first.get("trade");
        JsonNode loser = second.get("trade");
        assertThat(winner.get("waitedFor").size())
                .as("the first got its locks at once")
                .isZero();
        assertThat(loser.get("waitedFor").toString())
                .isEqualTo("[" + winner.get("id").asLong() + "]");
        assertThat(loser.get("waitedOn").toString()).isEqualTo("[\"market:teapot.tea-seller\"]");
        assertThat(loser.get("waitedMillis").asLong())
                .as("it waited for the first's slow trade to release the lock")
                .isGreaterThan(winner.get("waitedMillis").asLong());
        assertThat(new BigInteger(
                        token(loser, "market:teapot.tea-seller").get("value").asString()))
                .isGreaterThan(new BigInteger(
                        token(winner, "market:teapot.tea-seller").get("value").asString()));
        assertThat(token(loser, "market:teapot.tea-seller").get("previousTrade").asLong())
                .isEqualTo(winner.get("id").asLong());
        assertThat(token(loser, "market:teapot.tea-seller").get("sincePrevious").asLong())
                .isPositive();
    }

    private static JsonNode token(JsonNode trade, String lock) {
        return StreamSupport.stream(trade.get("tokens").spliterator(), false)
                .filter(token -> token.get("lock").asString().equals(lock))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no token of " + lock + " in " + trade));
    }

    private String get(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
                .timeout(Duration.ofSeconds(10))
                .build();
        return this.http.send(request, HttpResponse.BodyHandlers.ofString()).body();
    }

    private HttpRequest request(String path, String json) {
        return HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();
    }

    private int post(String path, String json) throws Exception {
        return this.http
                .send(request(path, json), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }
}
