package dev.turnstile.sample.market;

/** The book's key names. */
public final class MarketKeys {

    /** The market ZSET: member {@code itemId.sellerId}, score = price. */
    public static final String MARKET = "market:";

    private MarketKeys() {}

    /** {@code users:{id}}: HASH with {@code name} and {@code funds}. */
    public static String user(String userId) {
        return "users:" + userId;
    }

    /** {@code inventory:{id}}: SET of item ids. */
    public static String inventory(String userId) {
        return "inventory:" + userId;
    }

    /** {@code itemId.sellerId}: the market member. */
    public static String item(String itemId, String sellerId) {
        return itemId + "." + sellerId;
    }
}
