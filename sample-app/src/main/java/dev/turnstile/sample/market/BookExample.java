package dev.turnstile.sample.market;

import java.util.List;
import java.util.Map;
import java.util.Set;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.resps.Tuple;

/**
 * The marketplace as the book draws it in section 6.2 (figures 6.2 to 6.5), before anything is
 * listed or bought: Frank (user 17, funds 43, inventory ItemL, ItemM, ItemN) and Bill (user 27,
 * funds 125, inventory ItemO, ItemP, ItemQ), and on the market ItemA of user 4 at 35, ItemC of 7
 * at 48, ItemE of 2 at 60 and ItemG of 3 at 73. The book shows only the ids of the four sellers;
 * the sample names them "Seller 2" and so on, with no funds.
 */
public final class BookExample {

    /**
     * A user of the example.
     *
     * @param id the book's user id
     * @param name the name (the book's, for 17 and 27)
     * @param funds the funds
     * @param inventory the items in the user's inventory
     */
    public record User(String id, String name, long funds, Set<String> inventory) {}

    /** The example's users, by id. */
    public static final List<User> USERS = List.of(
            new User("17", "Frank", 43, Set.of("ItemL", "ItemM", "ItemN")),
            new User("27", "Bill", 125, Set.of("ItemO", "ItemP", "ItemQ")),
            new User("2", "Seller 2", 0, Set.of()),
            new User("3", "Seller 3", 0, Set.of()),
            new User("4", "Seller 4", 0, Set.of()),
            new User("7", "Seller 7", 0, Set.of()));

    /** The example's listings, cheapest first. */
    public static final List<MarketData.Listing> LISTINGS = List.of(
            new MarketData.Listing("ItemA", "4", 35),
            new MarketData.Listing("ItemC", "7", 48),
            new MarketData.Listing("ItemE", "2", 60),
            new MarketData.Listing("ItemG", "3", 73));

    private BookExample() {}

    /**
     * Puts the example back as the book starts it: its six users with their funds and inventories
     * (replacing what they had), its four listings, and none of its users' other listings. Leaves
     * every other key alone (other users, and their listings and inventories). One transaction:
     * nobody sees half an example.
     */
    public static void load(Jedis conn) {
        List<String> stale = listingsOfExampleUsers(conn);
        Transaction transaction = conn.multi();
        for (User user : USERS) {
            transaction.del(MarketKeys.user(user.id()), MarketKeys.inventory(user.id()));
            transaction.hset(
                    MarketKeys.user(user.id()), Map.of("name", user.name(), "funds", Long.toString(user.funds())));
            if (!user.inventory().isEmpty()) {
                transaction.sadd(
                        MarketKeys.inventory(user.id()), user.inventory().toArray(String[]::new));
            }
        }
        if (!stale.isEmpty()) {
            transaction.zrem(MarketKeys.MARKET, stale.toArray(String[]::new));
        }
        for (MarketData.Listing listing : LISTINGS) {
            transaction.zadd(MarketKeys.MARKET, listing.price(), MarketKeys.item(listing.itemId(), listing.sellerId()));
        }
        transaction.exec();
    }

    private static List<String> listingsOfExampleUsers(Jedis conn) {
        Set<String> ids = Set.copyOf(USERS.stream().map(User::id).toList());
        List<String> members = new java.util.ArrayList<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<Tuple> page = conn.zscan(MarketKeys.MARKET, cursor, new ScanParams().count(1000));
            for (Tuple tuple : page.getResult()) {
                String member = tuple.getElement();
                if (ids.contains(member.substring(member.lastIndexOf('.') + 1))) {
                    members.add(member);
                }
            }
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return members;
    }
}
