package dev.turnstile.sample.market;

import redis.clients.jedis.Jedis;

/**
 * The book's two marketplace operations. Like the book's functions they take the caller's
 * connection first, so every benchmark worker uses its own connection as the book's processes did.
 */
public interface Market {

    /** Returns the strategy's name: {@code watch}, {@code lock} or {@code fine}. */
    String name();

    /** Moves {@code itemId} from the seller's inventory onto the market at {@code price}. */
    TradeResult listItem(Jedis conn, String itemId, String sellerId, long price);

    /**
     * Buys {@code itemId} of {@code sellerId} at {@code price}: moves the funds, the item into the
     * buyer's inventory, and the listing off the market. Funds never go negative and an item is
     * never sold twice.
     */
    TradeResult purchaseItem(Jedis conn, String buyerId, String itemId, String sellerId, long price);
}
