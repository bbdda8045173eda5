package dev.turnstile.redis;

import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/** The semaphore contract on one redis-server, through a pooled client of one server. */
class StandaloneSemaphoreContractTests extends SemaphoreContract {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    protected UnifiedJedis connect() {
        return redis.server().newClient(Duration.ofSeconds(2));
    }
}
