package dev.turnstile.sample.benchmark;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.sample.market.Connections;
import dev.turnstile.sample.market.Market;
import dev.turnstile.sample.market.WatchMarket;
import dev.turnstile.sample.market.WorkerLockMarket;
import java.time.Duration;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * One simulated worker process of the book: a connection of its own for the market's data and,
 * for the locked strategies, a Turnstile of its own on a client of its own.
 */
final class Worker implements AutoCloseable {

    /** How long a worker waits for a lock, as the book's {@code acquire_lock} (10 s). */
    private static final Duration LOCK_WAIT = Duration.ofSeconds(10);

    final Jedis conn;
    /** {@link #conn}, as the market's operations take it. */
    final Connections redis;

    final Market market;
    private final @Nullable UnifiedJedis lockClient;
    private final @Nullable Turnstile turnstile;

    private Worker(Jedis conn, Market market, @Nullable UnifiedJedis lockClient, @Nullable Turnstile turnstile) {
        this.conn = conn;
        this.redis = Connections.of(conn);
        this.market = market;
        this.lockClient = lockClient;
        this.turnstile = turnstile;
    }

    /** A worker for {@code strategy} (watch, lock or fine). */
    static Worker start(String strategy, Supplier<Jedis> connections, Supplier<UnifiedJedis> lockClients) {
        Jedis conn = connections.get();
        if (strategy.equals("watch")) {
            return new Worker(conn, new WatchMarket(), null, null);
        }
        UnifiedJedis client = null;
        try {
            client = lockClients.get();
            Turnstile turnstile = Turnstile.builder(client).build();
            Market market = strategy.equals("lock")
                    ? WorkerLockMarket.coarse(turnstile, LOCK_WAIT)
                    : WorkerLockMarket.perItem(turnstile, LOCK_WAIT);
            return new Worker(conn, market, client, turnstile);
        } catch (RuntimeException e) {
            if (client != null) {
                client.close();
            }
            conn.close();
            throw e;
        }
    }

    @Override
    public void close() {
        if (this.turnstile != null) {
            this.turnstile.close();
        }
        if (this.lockClient != null) {
            this.lockClient.close();
        }
        this.conn.close();
    }
}
