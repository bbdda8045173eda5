package dev.turnstile.sample.market;

import dev.turnstile.annotation.DistributedLock;
import java.time.Duration;
import org.springframework.stereotype.Component;
import redis.clients.jedis.Jedis;

/**
 * Section 6.2.4 of the book: a lock per item ("fine-grained"), so trades of different items run
 * in parallel. The buyer's funds are covered too: two purchases by one buyer of different items
 * could otherwise both pass the funds check.
 */
@Component
public class FineLockMarket implements Market {

    @Override
    public String name() {
        return "fine";
    }

    @Override
    @DistributedLock(key = "market:#itemId.#sellerId")
    public TradeResult listItem(Jedis conn, String itemId, String sellerId, long price) {
        return MarketTransactions.list(conn, itemId, sellerId, price);
    }

    @Override
    @DistributedLock(key = {"market:#itemId.#sellerId", "funds:#buyerId"})
    public TradeResult purchaseItem(Jedis conn, String buyerId, String itemId, String sellerId, long price) {
        return MarketTransactions.purchase(conn, buyerId, itemId, sellerId, price, Duration.ZERO);
    }

    @Override
    @DistributedLock(key = {"market:#itemId.#sellerId", "funds:#buyerId"})
    public TradeResult purchaseItem(
            Jedis conn, String buyerId, String itemId, String sellerId, long price, Duration pause) {
        return MarketTransactions.purchase(conn, buyerId, itemId, sellerId, price, pause);
    }
}
