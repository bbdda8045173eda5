package dev.turnstile.sample.market;

import java.time.Duration;
import java.util.List;

/**
 * The book's two marketplace operations. Like the book's functions they take the caller's
 * connections first: a benchmark worker passes its own connection, as the book's processes did; the
 * web application passes its pool, from which a locked trade takes a connection only once it holds
 * its locks (see {@link Connections}).
 */
public interface Market {

    /** Returns the strategy's name: {@code watch}, {@code lock} or {@code fine}. */
    String name();

    /** Moves {@code itemId} from the seller's inventory onto the market at {@code price}. */
    TradeResult listItem(Connections redis, String itemId, String sellerId, long price);

    /**
     * Buys {@code itemId} of {@code sellerId} at {@code price}: moves the funds, the item into the
     * buyer's inventory, and the listing off the market. Funds never go negative and an item is
     * never sold twice.
     *
     * <p>A nonzero {@code pause} is taken between reading the listing and the buyer's funds and
     * writing the trade, as if the trade called a slow service there: the page's "slow trade".
     * Under a lock, the lock is held that much longer, so a second buyer of the same listing waits
     * for it; under WATCH, nothing waits, and the transaction that commits second is retried. A
     * purchase refused by its reads (not listed, funds too low) does not pause.
     *
     * @param pause how long the trade takes between its reads and its writes; zero for none
     */
    TradeResult purchaseItem(
            Connections redis, String buyerId, String itemId, String sellerId, long price, Duration pause);

    /** Returns the names of the locks {@link #listItem} takes for these arguments; empty for none. */
    List<String> listLocks(String itemId, String sellerId);

    /** Returns the names of the locks {@link #purchaseItem} takes for these arguments; empty for none. */
    List<String> purchaseLocks(String buyerId, String itemId, String sellerId);
}
