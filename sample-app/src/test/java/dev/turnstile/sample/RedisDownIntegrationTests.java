package dev.turnstile.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.test.redis.RedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.clients.jedis.Jedis;

/**
 * With Redis not ready (a replica refusing writes) or gone, every path of the marketplace that
 * needs it answers 503 with Retry-After, as a problem detail.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.data.redis.timeout=500ms",
            "spring.data.redis.connect-timeout=500ms",
            "sample.runs.enabled=true",
            "sample.example.load-on-start=false"
        })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisDownIntegrationTests {

    static final RedisServer redis = RedisServer.start();

    @DynamicPropertySource
    static void redisProperties(DynamicPropertyRegistry registry) {
        TestRedis.use(registry, redis::port);
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    @Order(1)
    void aReplicaRefusingWritesIs503OnEveryWritingPath() throws Exception {
        assertThat(send("POST", "/users", "{\"id\":\"ann\",\"funds\":100}").statusCode())
                .isEqualTo(201);
        try (RedisServer master = RedisServer.start();
                Jedis admin = redis.connect()) {
            admin.replicaof("127.0.0.1", master.port());
            try {
                for (String[] request : List.of(
                        new String[] {"POST", "/users", "{\"id\":\"bob\",\"funds\":1}"},
                        new String[] {"GET", "/accounts/acct-1/partner-quote?item=x", ""},
                        new String[] {"GET", "/accounts/acct-1/stream", ""},
                        new String[] {
                            "POST",
                            "/market/purchases?strategy=fine",
                            "{\"buyerId\":\"ann\",\"itemId\":\"sword\",\"sellerId\":\"ann\",\"price\":5}"
                        })) {
                    assertUnavailable(request);
                }
            } finally {
                admin.replicaofNoOne();
            }
        }
    }

    @Test
    @Order(2)
    void everyPathAnswers503WithRetryAfterWhenRedisIsGone() throws Exception {
        redis.kill();

        List<String[]> requests = List.of(
                new String[] {"GET", "/users", ""},
                new String[] {"GET", "/users/ann", ""},
                new String[] {"GET", "/market", ""},
                new String[] {"GET", "/held", ""},
                new String[] {"GET", "/accounts/acct-1/partner-quote?item=x", ""},
                new String[] {"GET", "/accounts/acct-1/stream", ""},
                new String[] {"POST", "/users", "{\"id\":\"bob\",\"funds\":1}"},
                new String[] {"POST", "/users/ann/inventory", "{\"itemId\":\"sword\"}"},
                new String[] {"POST", "/market/listings", "{\"itemId\":\"sword\",\"sellerId\":\"ann\",\"price\":5}"},
                new String[] {
                    "POST",
                    "/market/purchases?strategy=watch",
                    "{\"buyerId\":\"ann\",\"itemId\":\"sword\",\"sellerId\":\"ann\",\"price\":5}"
                },
                new String[] {
                    "POST",
                    "/market/purchases?strategy=fine",
                    "{\"buyerId\":\"ann\",\"itemId\":\"sword\",\"sellerId\":\"ann\",\"price\":5}"
                },
                new String[] {"POST", "/accounts/acct-1/partner-burst", ""},
                new String[] {"POST", "/runs/table-6.3", ""},
                new String[] {"POST", "/runs/lock-lab", ""});
        for (String[] request : requests) {
            assertUnavailable(request);
        }
        assertThat(send("GET", "/", "").statusCode())
                .as("the page itself is static")
                .isEqualTo(200);
    }

    private void assertUnavailable(String[] request) throws Exception {
        HttpResponse<String> answer = send(request[0], request[1], request[2]);
        String what = request[0] + " " + request[1];
        assertThat(answer.statusCode()).as(what + ": " + answer.body()).isEqualTo(503);
        assertThat(answer.headers().firstValue("Retry-After")).as(what).contains("2");
        MarketplaceApiIntegrationTests.assertProblem(answer).as(what).contains("unavailable; retry after 2s");
    }

    private HttpResponse<String> send(String method, String path, String json) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
                .timeout(Duration.ofSeconds(20));
        if (method.equals("GET")) {
            request.GET();
        } else {
            request.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
        }
        return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
