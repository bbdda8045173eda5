package dev.turnstile.redis.lock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.RedisClients;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.UnifiedJedis;

/**
 * The release signals borrow their pub/sub connection from the application's pool: it must come
 * back clean, whatever races the shutdown (waiters subscribing and leaving, releases), or the next
 * command on it reads a pub/sub reply instead of its own.
 */
class SignalConnectionIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void theSubscriberConnectionGoesBackToThePoolCleanWhateverRacesTheClose() throws Exception {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(3);
        pool.setMaxIdle(3);
        pool.setLifo(true); // the connection returned last is borrowed next
        try (UnifiedJedis client = RedisClients.standalone(
                redis.server().hostAndPort(),
                DefaultJedisClientConfig.builder().timeoutMillis(2_000).build(),
                pool)) {
            client.set("probe", "ok");
            ExecutorService threads = Executors.newCachedThreadPool();
            try {
                for (int round = 0; round < 300; round++) {
                    Turnstile turnstile = Turnstile.builder(client).build();
                    Lease held = turnstile.lock("raced").acquire(Duration.ZERO, null);
                    List<Future<?>> waiters = new ArrayList<>();
                    long wait = round % 7;
                    for (int w = 0; w < 2; w++) {
                        Turnstile other = Turnstile.builder(client).build();
                        waiters.add(threads.submit(() -> {
                            try {
                                other.lock("raced")
                                        .tryAcquire(Duration.ofMillis(wait), null)
                                        .ifPresent(Lease::close);
                            } finally {
                                other.close();
                            }
                            return null;
                        }));
                    }
                    held.release();
                    turnstile.close();
                    for (Future<?> waiter : waiters) {
                        waiter.get(10, TimeUnit.SECONDS);
                    }
                    for (int probe = 0; probe < 6; probe++) {
                        assertThat(client.get("probe"))
                                .as("round %d: a pooled connection answers its own command", round)
                                .isEqualTo("ok");
                    }
                }
            } finally {
                threads.shutdownNow();
            }
        }
    }
}
