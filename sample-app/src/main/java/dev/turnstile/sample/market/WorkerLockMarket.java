package dev.turnstile.sample.market;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.LockFactory;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * The locked strategies for one simulated worker process: the same locks {@link CoarseLockMarket}
 * and {@link FineLockMarket} take through their annotations, taken here on the worker's own {@link
 * LockFactory}, as each of the book's worker processes had its own lock client. (Threads sharing
 * one Turnstile would pass a hot lock between themselves without Redis, which is not what the
 * book measured.)
 */
public final class WorkerLockMarket implements Market {

    private final String name;
    private final LockFactory locks;
    private final Duration wait;
    private final boolean perItem;

    private WorkerLockMarket(String name, LockFactory locks, Duration wait, boolean perItem) {
        this.name = name;
        this.locks = locks;
        this.wait = wait;
        this.perItem = perItem;
    }

    /** One lock on the whole market, as {@link CoarseLockMarket}. */
    public static WorkerLockMarket coarse(LockFactory locks, Duration wait) {
        return new WorkerLockMarket("lock", locks, wait, false);
    }

    /** A lock per item and one on the buyer's funds, as {@link FineLockMarket}. */
    public static WorkerLockMarket perItem(LockFactory locks, Duration wait) {
        return new WorkerLockMarket("fine", locks, wait, true);
    }

    @Override
    public String name() {
        return this.name;
    }

    @Override
    public TradeResult listItem(Connections redis, String itemId, String sellerId, long price) {
        return locked(listLocks(itemId, sellerId), () -> MarketTransactions.list(redis, itemId, sellerId, price));
    }

    @Override
    public TradeResult purchaseItem(
            Connections redis, String buyerId, String itemId, String sellerId, long price, Duration pause) {
        return locked(
                purchaseLocks(buyerId, itemId, sellerId),
                () -> MarketTransactions.purchase(redis, buyerId, itemId, sellerId, price, pause));
    }

    @Override
    public List<String> listLocks(String itemId, String sellerId) {
        return this.perItem ? List.of(itemLock(itemId, sellerId)) : List.of("market");
    }

    @Override
    public List<String> purchaseLocks(String buyerId, String itemId, String sellerId) {
        return this.perItem ? List.of(itemLock(itemId, sellerId), "funds:" + buyerId) : List.of("market");
    }

    private TradeResult locked(List<String> names, Supplier<TradeResult> trade) {
        try (Lease lease = this.locks.lock(names).acquire(this.wait, null)) {
            return trade.get();
        } catch (LockAcquisitionException e) {
            return TradeResult.of(Outcome.GAVE_UP);
        }
    }

    private static String itemLock(String itemId, String sellerId) {
        return "market:" + MarketKeys.item(itemId, sellerId);
    }
}
