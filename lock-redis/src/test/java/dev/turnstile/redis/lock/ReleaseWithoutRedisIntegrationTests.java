package dev.turnstile.redis.lock;

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
    }
}
