package dev.turnstile.sample.market;

import dev.turnstile.annotation.DistributedLock;
import java.time.Duration;
import java.util.List;
import org.springframework.stereotype.Component;

/** Section 6.2.3 of the book: one lock around the whole market. No retries, but one trade at a time. */
@Component
public class CoarseLockMarket implements Market {

    @Override
    public String name() {
        return "lock";
    }

    @Override
    @DistributedLock(key = "market")
    public TradeResult listItem(Connections redis, String itemId, String sellerId, long price) {
        return MarketTransactions.list(redis, itemId, sellerId, price);
    }

    @Override
    @DistributedLock(key = "market")
    public TradeResult purchaseItem(
            Connections redis, String buyerId, String itemId, String sellerId, long price, Duration pause) {
        return MarketTransactions.purchase(redis, buyerId, itemId, sellerId, price, pause);
    }

    @Override
    public List<String> listLocks(String itemId, String sellerId) {
        return List.of("market");
    }

    @Override
    public List<String> purchaseLocks(String buyerId, String itemId, String sellerId) {
        return List.of("market");
    }
}
