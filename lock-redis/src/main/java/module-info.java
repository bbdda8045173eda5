/**
 * Distributed locks and counting semaphores held in Redis. Start at {@link
 * dev.turnstile.redis.Turnstile}.
 */
module dev.turnstile.redis {
    requires transitive redis.clients.jedis;
    requires static org.jspecify;
    requires org.slf4j;
    requires org.apache.commons.pool2;

    exports dev.turnstile.redis;
    exports dev.turnstile.redis.lock;
    exports dev.turnstile.redis.semaphore;
    exports dev.turnstile.redis.inspect;
}
