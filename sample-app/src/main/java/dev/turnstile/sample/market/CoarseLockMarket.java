package dev.turnstile.sample.market;

import dev.turnstile.annotation.DistributedLock;
import java.time.Duration;
import org.springframework.stereotype.Component;
import redis.clients.jedis.Jedis;

/** Section 6.2.3 of the book: one lock around the whole market. No retries, but one trade at a time. */
@Component
public class CoarseLockMarket implements Market {

    @Override
    public String name() {
        return "lock";
    }

    @Override
    @DistributedLock(key = "market")
    public TradeResult listItem(Jedis conn, String itemId, String sellerId, long price) {
        return MarketTransactions.list(conn, itemId, sellerId, price);
    }

    @Override
    @DistributedLock(key = "market")
    public TradeResult purchaseItem(Jedis conn, String buyerId, String itemId, String sellerId, long price) {
        return MarketTransactions.purchase(conn, buyerId, itemId, sellerId, price, Duration.ZERO);
    }

    @Override
    @DistributedLock(key = "market")
    public TradeResult purchaseItem(
            Jedis conn, String buyerId, String itemId, String sellerId, long price, Duration pause) {
        return MarketTransactions.purchase(conn, buyerId, itemId, sellerId, price, pause);
    }
}
