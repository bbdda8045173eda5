package dev.turnstile.redis.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.RedisServer;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/** A holder whose Redis is gone: {@code release()} says so with an exception, {@code close()} only logs. */
class ReleaseWithoutRedisIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void releaseThrowsRedisUnavailableWhileCloseLogsAndNeitherTouchesAnotherOwner() {
        RedisServer server = redis.startServer(b -> b);
        try (UnifiedJedis client = server.newClient(Duration.ofMillis(500));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            Lease held = turnstile.lock("report").acquire(Duration.ZERO, Duration.ofSeconds(30));
            server.kill();
            assertThatThrownBy(held::release)
                    .isInstanceOf(RedisUnavailableException.class)
                    .hasMessageContaining("lock 'report'");
            assertThatCode(held::close).doesNotThrowAnyException();
        }

        // Another owner: A's lease ran out and B holds the name. A's close() leaves
        // B's key, its owner and its TTL as they were.
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(2));
                Turnstile a = Turnstile.builder(client).build();
                Turnstile b = Turnstile.builder(client).build()) {
            Lease first = a.lock("shared").acquire(Duration.ZERO, Duration.ofMillis(200));
            Lease second = b.lock("shared").acquire(Duration.ofSeconds(5), Duration.ofSeconds(30));
            String owner = client.get("turnstile:lock:{shared}");
            assertThat(owner).as("B's owner value").isNotNull();
            assertThatCode(first::close).doesNotThrowAnyException();
            assertThat(client.get("turnstile:lock:{shared}"))
                    .as("B's key after A's close()")
                    .isEqualTo(owner);
            assertThat(client.pttl("turnstile:lock:{shared}")).isGreaterThan(25_000L);
            assertThat(second.isHeld()).isTrue();
            assertThat(second.release()).as("B's release").isTrue();
        }
    }
}
