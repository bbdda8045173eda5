package dev.turnstile.sample.market;

import dev.turnstile.annotation.DistributedLock;
import java.time.Duration;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * Section 6.2.4 of the book: a lock per item ("fine-grained"), so trades of different items run
 * in parallel. The buyer's funds are covered too: two purchases by one buyer of different items
 * could otherwise both pass the funds check. {@link #listLocks} and {@link #purchaseLocks} name the
 * locks the annotations resolve to, for the lock log.
 */
@Component
public class FineLockMarket implements Market {

    @Override
    public String name() {
        return "fine";
    }

    @Override
    @DistributedLock(key = "market:#itemId.#sellerId")
    public TradeResult listItem(Connections redis, String itemId, String sellerId, long price) {
        return MarketTransactions.list(redis, itemId, sellerId, price);
    }

    @Override
    @DistributedLock(key = {"market:#itemId.#sellerId", "funds:#buyerId"})
    public TradeResult purchaseItem(
            Connections redis, String buyerId, String itemId, String sellerId, long price, Duration pause) {
        return MarketTransactions.purchase(redis, buyerId, itemId, sellerId, price, pause);
    }

    @Override
    public List<String> listLocks(String itemId, String sellerId) {
        return List.of("market:" + MarketKeys.item(itemId, sellerId));
    }

    @Override
    public List<String> purchaseLocks(String buyerId, String itemId, String sellerId) {
        return List.of("market:" + MarketKeys.item(itemId, sellerId), "funds:" + buyerId);
    }
}
