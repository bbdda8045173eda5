package dev.turnstile.sample.web;

import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.sample.market.Connections;
import dev.turnstile.sample.market.Market;
import dev.turnstile.sample.market.MarketData;
import dev.turnstile.sample.market.Markets;
import dev.turnstile.sample.market.Outcome;
import dev.turnstile.sample.market.TradeResult;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Runs a listing or a purchase under the strategy asked for and records it in the {@link TradeLog}.
 * The strategy takes a connection from the marketplace's pool only once it holds its locks, and only
 * while it talks to Redis ({@link Connections#pool}): a buyer waiting for a listing's lock holds no
 * connection, so any number of them leave the pool to those that trade. Thread-safe.
 */
@Component
class TradeDesk {

    private final JedisPool pool;
    private final Connections connections;
    private final Markets markets;
    private final TradeLog trades;
    private final Duration slowTrade;

    TradeDesk(JedisPool pool, Markets markets, TradeLog trades, @Value("${sample.trade.slow:3s}") Duration slowTrade) {
        this.pool = pool;
        this.connections = Connections.pool(pool);
        this.markets = markets;
        this.trades = trades;
        this.slowTrade = slowTrade;
    }

    /** How long a slow trade holds its locks between its reads and its writes. */
    Duration slowTrade() {
        return this.slowTrade;
    }

    /**
     * Returns the strategy called {@code name}.
     *
     * @throws InvalidInputException (400) naming {@code strategy} and the strategies there are
     */
    Market market(String name) {
        return this.markets
                .find(name)
                .orElseThrow(() -> new InvalidInputException(
                        "strategy", "'strategy' must be one of " + this.markets.names() + "."));
    }

    /**
     * Lists {@code itemId} of {@code sellerId} at {@code price}.
     *
     * @throws TradeRefusedException (400) when the seller does not have the item
     */
    MarketplaceController.TradeResponse list(String strategy, String itemId, String sellerId, long price) {
        Market market = market(strategy);
        requireUser("sellerId", sellerId);
        try (TradeLog.Entry trade = this.trades.begin(
                new TradeLog.Request("list", sellerId, itemId, sellerId, price, strategy, false),
                market.listLocks(itemId, sellerId))) {
            return respond(market, trade, () -> market.listItem(this.connections, itemId, sellerId, price));
        }
    }

    /**
     * Buys {@code itemId} of {@code sellerId} at {@code price} for {@code buyerId}; a slow trade holds
     * its locks {@link #slowTrade()} longer. {@code begun} is told the trade's log entry before it asks
     * for its locks.
     *
     * @throws TradeRefusedException (400) when the listing is gone or the funds are below the price
     */
    MarketplaceController.TradeResponse buy(
            String strategy,
            String buyerId,
            String itemId,
            String sellerId,
            long price,
            boolean slow,
            Consumer<TradeLog.Entry> begun) {
        Market market = market(strategy);
        requireUser("buyerId", buyerId);
        Duration pause = slow ? this.slowTrade : Duration.ZERO;
        try (TradeLog.Entry trade = this.trades.begin(
                new TradeLog.Request("buy", buyerId, itemId, sellerId, price, strategy, slow),
                market.purchaseLocks(buyerId, itemId, sellerId))) {
            begun.accept(trade);
            return respond(
                    market,
                    trade,
                    () -> market.purchaseItem(this.connections, buyerId, itemId, sellerId, price, pause));
        }
    }

    /**
     * Throws a 400 naming {@code field} unless user {@code id} exists.
     *
     * @throws InvalidInputException naming the field and the id
     */
    void requireUser(String field, String id) {
        boolean exists;
        try (Jedis conn = this.pool.getResource()) {
            exists = MarketData.userExists(conn, id);
        }
        if (!exists) {
            throw new InvalidInputException(field, "'" + field + "' names no user: there is no user '" + id + "'.");
        }
    }

    /** Runs the trade, records how it ended, and answers it or throws its refusal. */
    private static MarketplaceController.TradeResponse respond(
            Market market, TradeLog.Entry trade, Supplier<TradeResult> run) {
        TradeResult result;
        try {
            result = run.get();
        } catch (LockAcquisitionException e) {
            trade.end("BUSY", 0);
            throw e;
        } catch (JedisException | RedisUnavailableException e) {
            trade.end("UNAVAILABLE", 0);
            throw e;
        }
        trade.end(result.outcome().name(), result.retries());
        if (result.outcome() != Outcome.DONE) {
            throw new TradeRefusedException(result.outcome(), trade.snapshot());
        }
        return new MarketplaceController.TradeResponse(
                market.name(), result.outcome().name(), result.retries(), trade.snapshot());
    }
}
