package dev.turnstile.benchmarks;

import java.util.concurrent.atomic.LongAdder;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.executors.CommandExecutor;
import redis.clients.jedis.executors.DefaultCommandExecutor;
import redis.clients.jedis.providers.PooledConnectionProvider;

/**
 * A pooled Jedis client that counts the commands it sends: round trips, as opposed to {@code INFO
 * commandstats}, which also counts the commands Lua scripts run inside the server. Pub/sub
 * subscriptions do not pass through here; the harness takes those from the server.
 */
final class CountingRedis {

    private final LongAdder roundTrips = new LongAdder();
    private final UnifiedJedis client;

    CountingRedis(HostAndPort address, int poolSize) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(poolSize);
        pool.setMaxIdle(poolSize);
        PooledConnectionProvider provider = new PooledConnectionProvider(
                address, DefaultJedisClientConfig.builder().timeoutMillis(5_000).build(), pool);
        DefaultCommandExecutor delegate = new DefaultCommandExecutor(provider);
        CommandExecutor counting = new CommandExecutor() {
            @Override
            public <T> T executeCommand(CommandObject<T> command) {
                CountingRedis.this.roundTrips.increment();
                return delegate.executeCommand(command);
            }

            @Override
            public void close() {
                delegate.close();
            }
        };
        this.client = new UnifiedJedis(counting, provider, new CommandObjects());
    }

    UnifiedJedis client() {
        return this.client;
    }

    long roundTrips() {
        return this.roundTrips.sum();
    }
}
