package dev.turnstile.sample.market;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.resps.Tuple;

/**
 * A cast of users and listings to load into the marketplace, in the book's data layout.
 *
 * <ul>
 *   <li>{@link #STREET}, the page's first open: four people with goods a stranger recognises, for
 *       the page's guided steps (buy the lamp, list and buy the guitar, race two buyers for the
 *       teapot), which work in that order.
 *   <li>{@link #BOOK}, "Redis in Action, 6.2": the marketplace as the book draws it in figures 6.2 to
 *       6.5, before anything is listed or bought: Frank (user 17, funds 43, inventory ItemL, ItemM,
 *       ItemN) and Bill (user 27, funds 125, inventory ItemO, ItemP, ItemQ), and on the market ItemA
 *       of user 4 at 35, ItemC of 7 at 48, ItemE of 2 at 60 and ItemG of 3 at 73. The book shows only
 *       the ids of the four sellers; the sample names them "Seller 4" and so on, with no funds.
 * </ul>
 *
 * @param name how the API names it: {@code street} or {@code book}
 * @param title how the page names it
 * @param users its users, with their funds and inventories
 * @param listings its listings, cheapest first
 */
public record Scene(String name, String title, List<User> users, List<MarketData.Listing> listings) {

    /**
     * A user of a scene.
     *
     * @param id the user's id
     * @param name the name
     * @param funds the funds
     * @param inventory the items in the user's inventory
     */
    public record User(String id, String name, long funds, Set<String> inventory) {}

    /** The page's first open: Ann, Ben, Cara and Dev, and four listings from a lamp at 25 to a bicycle at 80. */
    public static final Scene STREET = new Scene(
            "street",
            "a market street",
            List.of(
                    new User("ann", "Ann", 120, Set.of("guitar", "typewriter")),
                    new User("ben", "Ben", 150, Set.of("camera")),
                    new User("cara", "Cara", 40, Set.of()),
                    new User("dev", "Dev", 60, Set.of())),
            List.of(
                    new MarketData.Listing("lamp", "cara", 25),
                    new MarketData.Listing("teapot", "dev", 30),
                    new MarketData.Listing("chess-set", "cara", 45),
                    new MarketData.Listing("bicycle", "dev", 80)));

    /** The book's figures 6.2 to 6.5: Frank (17), Bill (27), four sellers and four listings. */
    public static final Scene BOOK = new Scene(
            "book",
            "Redis in Action, 6.2",
            List.of(
                    new User("17", "Frank", 43, Set.of("ItemL", "ItemM", "ItemN")),
                    new User("27", "Bill", 125, Set.of("ItemO", "ItemP", "ItemQ")),
                    new User("2", "Seller 2", 0, Set.of()),
                    new User("3", "Seller 3", 0, Set.of()),
                    new User("4", "Seller 4", 0, Set.of()),
                    new User("7", "Seller 7", 0, Set.of())),
            List.of(
                    new MarketData.Listing("ItemA", "4", 35),
                    new MarketData.Listing("ItemC", "7", 48),
                    new MarketData.Listing("ItemE", "2", 60),
                    new MarketData.Listing("ItemG", "3", 73)));

    /** Every scene, the first open's first. */
    public static final List<Scene> ALL = List.of(STREET, BOOK);

    /** Returns the scene called {@code name} ({@code street} or {@code book}), if there is one. */
    public static Optional<Scene> find(String name) {
        return ALL.stream()
                .filter(scene -> scene.name().equals(name.trim().toLowerCase(Locale.ROOT)))
                .findFirst();
    }

    /** Returns the scenes' names, for a message. */
    public static String names() {
        return ALL.stream().map(Scene::name).collect(Collectors.joining(" or "));
    }

    /**
     * Puts the scene back as it starts: its users with their funds and inventories (replacing what
     * they had), its listings, and none of its users' other listings. Leaves every other key alone
     * (other users, and their listings and inventories). One transaction: nobody sees half a scene.
     */
    public void load(Jedis conn) {
        List<String> stale = listingsOfUsers(conn);
        Transaction transaction = conn.multi();
        for (User user : this.users) {
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
        for (MarketData.Listing listing : this.listings) {
            transaction.zadd(MarketKeys.MARKET, listing.price(), MarketKeys.item(listing.itemId(), listing.sellerId()));
        }
        transaction.exec();
    }

    private List<String> listingsOfUsers(Jedis conn) {
        Set<String> ids = Set.copyOf(this.users.stream().map(User::id).toList());
        List<String> members = new ArrayList<>();
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
