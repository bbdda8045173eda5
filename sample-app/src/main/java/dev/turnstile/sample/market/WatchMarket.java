package dev.turnstile.sample.market;

import java.time.Duration;
import java.util.List;
import org.springframework.stereotype.Component;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;

/**
 * Listings 6.1 and 6.2 of the book: optimistic locking with WATCH/MULTI/EXEC, retried until the
 * transaction goes through (or 10 s pass). Correct, but under contention most attempts are thrown
 * away; the retries are counted.
 */
@Component
public class WatchMarket implements Market {

    private static final long GIVE_UP_NANOS = 10_000_000_000L;

    @Override
    public String name() {
        return "watch";
    }

    @Override
    public TradeResult listItem(Connections redis, String itemId, String sellerId, long price) {
        return redis.with(conn -> listItem(conn, itemId, sellerId, price));
    }

    private static TradeResult listItem(Jedis conn, String itemId, String sellerId, long price) {
        String inventory = MarketKeys.inventory(sellerId);
        long end = System.nanoTime() + GIVE_UP_NANOS;
        int retries = 0;
        while (System.nanoTime() < end) {
            conn.watch(inventory);
            if (!conn.sismember(inventory, itemId)) {
                conn.unwatch();
                return new TradeResult(Outcome.NOT_IN_INVENTORY, retries);
            }
            Transaction transaction = conn.multi();
            transaction.zadd(MarketKeys.MARKET, price, MarketKeys.item(itemId, sellerId));
            transaction.srem(inventory, itemId);
            if (transaction.exec() != null) {
                return new TradeResult(Outcome.DONE, retries);
            }
            retries++;
        }
        return new TradeResult(Outcome.GAVE_UP, retries);
    }

    @Override
    public TradeResult purchaseItem(
            Connections redis, String buyerId, String itemId, String sellerId, long price, Duration pause) {
        // WATCH lives on one connection: it is held for the whole transaction, pause included.
        return redis.with(conn -> purchaseItem(conn, buyerId, itemId, sellerId, price, pause));
    }

    private static TradeResult purchaseItem(
            Jedis conn, String buyerId, String itemId, String sellerId, long price, Duration pause) {
        String buyer = MarketKeys.user(buyerId);
        String item = MarketKeys.item(itemId, sellerId);
        long end = System.nanoTime() + GIVE_UP_NANOS;
        int retries = 0;
        while (System.nanoTime() < end) {
            conn.watch(MarketKeys.MARKET, buyer);
            Double listed = conn.zscore(MarketKeys.MARKET, item);
            String funds = conn.hget(buyer, "funds");
            Outcome refusal = MarketTransactions.refusal(listed, funds, price);
            if (refusal != null) {
                conn.unwatch();
                return new TradeResult(refusal, retries);
            }
            MarketTransactions.pause(pause);
            Transaction transaction = conn.multi();
            MarketTransactions.transfer(transaction, buyerId, itemId, sellerId, price);
            List<Object> done = transaction.exec();
            if (done != null) {
                return new TradeResult(Outcome.DONE, retries);
            }
            retries++;
        }
        return new TradeResult(Outcome.GAVE_UP, retries);
    }

    @Override
    public List<String> listLocks(String itemId, String sellerId) {
        return List.of();
    }

    @Override
    public List<String> purchaseLocks(String buyerId, String itemId, String sellerId) {
        return List.of();
    }
}
