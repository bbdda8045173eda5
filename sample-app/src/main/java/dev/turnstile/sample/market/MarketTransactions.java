package dev.turnstile.sample.market;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.PipeliningBase;
import redis.clients.jedis.Response;

/**
 * The marketplace's reads and writes without any concurrency control of their own (listing 6.9
 * of the book, minus the lock): correct only while the caller holds a lock that covers the item.
 * Each takes a connection only while it talks to Redis: a slow trade's pause holds none.
 */
final class MarketTransactions {

    private MarketTransactions() {}

    static TradeResult list(Connections redis, String itemId, String sellerId, long price) {
        String inventory = MarketKeys.inventory(sellerId);
        return redis.with(conn -> {
            if (!conn.sismember(inventory, itemId)) {
                return TradeResult.of(Outcome.NOT_IN_INVENTORY);
            }
            Pipeline pipeline = conn.pipelined();
            pipeline.zadd(MarketKeys.MARKET, price, MarketKeys.item(itemId, sellerId));
            pipeline.srem(inventory, itemId);
            pipeline.sync();
            return TradeResult.of(Outcome.DONE);
        });
    }

    static TradeResult purchase(
            Connections redis, String buyerId, String itemId, String sellerId, long price, Duration pause) {
        Outcome refusal = redis.with(conn -> {
            Pipeline reads = conn.pipelined();
            Response<Double> listed = reads.zscore(MarketKeys.MARKET, MarketKeys.item(itemId, sellerId));
            Response<String> funds = reads.hget(MarketKeys.user(buyerId), "funds");
            reads.sync();
            return refusal(listed.get(), funds.get(), price);
        });
        if (refusal != null) {
            return TradeResult.of(refusal);
        }
        pause(pause);
        redis.with(conn -> {
            Pipeline writes = conn.pipelined();
            transfer(writes, buyerId, itemId, sellerId, price);
            writes.sync();
            return null;
        });
        return TradeResult.of(Outcome.DONE);
    }

    /**
     * Sleeps for {@code pause} (the page's slow trade). Interrupted, it returns at once with the
     * thread's interrupt flag set, and the trade goes on: it is already decided.
     */
    static void pause(Duration pause) {
        if (pause.isZero() || pause.isNegative()) {
            return;
        }
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Why a purchase cannot go ahead, or null if it can. */
    static @Nullable Outcome refusal(@Nullable Double listed, @Nullable String funds, long price) {
        if (funds == null) {
            return Outcome.UNKNOWN_USER;
        }
        if (listed == null || listed.longValue() != price) {
            return Outcome.NOT_LISTED;
        }
        if (Long.parseLong(funds) < price) {
            return Outcome.INSUFFICIENT_FUNDS;
        }
        return null;
    }

    /** The book's four writes of a purchase. */
    static void transfer(PipeliningBase pipeline, String buyerId, String itemId, String sellerId, long price) {
        pipeline.hincrBy(MarketKeys.user(sellerId), "funds", price);
        pipeline.hincrBy(MarketKeys.user(buyerId), "funds", -price);
        pipeline.sadd(MarketKeys.inventory(buyerId), itemId);
        pipeline.zrem(MarketKeys.MARKET, MarketKeys.item(itemId, sellerId));
    }
}
