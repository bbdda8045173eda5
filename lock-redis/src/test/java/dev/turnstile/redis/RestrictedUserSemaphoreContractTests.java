package dev.turnstile.redis;

import dev.turnstile.test.redis.RestrictedRedisUser;
import redis.clients.jedis.UnifiedJedis;

/** The semaphore contract on one server, unchanged, with Turnstile connected as the README's restricted Redis user. */
class RestrictedUserSemaphoreContractTests extends StandaloneSemaphoreContractTests {

    @Override
    protected UnifiedJedis connectTurnstile(UnifiedJedis client) {
        RestrictedRedisUser.createOn(redis.server());
        return RestrictedRedisUser.connect(redis.server());
    }
}
