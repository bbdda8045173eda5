package dev.turnstile.sample.market;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.resps.Tuple;

/** Users, inventories and the market listing: the reads and the setup writes. */
public final class MarketData {

    private MarketData() {}

    /** A listing on the market. */
    public record Listing(String itemId, String sellerId, long price) {}

    /** A user's account. */
    public record Account(String id, String name, long funds, Set<String> inventory) {}

    /** Creates or replaces user {@code id} with {@code funds}. */
    public static void createUser(Jedis conn, String id, String name, long funds) {
        conn.hset(MarketKeys.user(id), Map.of("name", name, "funds", Long.toString(funds)));
    }

    /**
     * Creates user {@code id} with {@code funds} unless there is one; returns whether it did. One
     * script: two clients creating the same user cannot both succeed, and nobody sees half a user.
     */
    public static boolean createUserIfAbsent(Jedis conn, String id, String name, long funds) {
        Object created = conn.eval(
                "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end "
                        + "redis.call('HSET', KEYS[1], 'name', ARGV[1], 'funds', ARGV[2]) return 1",
                List.of(MarketKeys.user(id)),
                List.of(name, Long.toString(funds)));
        return Long.valueOf(1).equals(created);
    }

    /** Returns whether user {@code id} exists. */
    public static boolean userExists(Jedis conn, String id) {
        return conn.exists(MarketKeys.user(id));
    }

    /** Puts {@code itemId} into {@code userId}'s inventory. */
    public static void addToInventory(Jedis conn, String userId, String itemId) {
        conn.sadd(MarketKeys.inventory(userId), itemId);
    }

    /** Returns the account, or null if the user does not exist. */
    public static Account account(Jedis conn, String id) {
        Map<String, String> user = conn.hgetAll(MarketKeys.user(id));
        if (user.isEmpty()) {
            return null;
        }
        return new Account(
                id, user.get("name"), Long.parseLong(user.get("funds")), conn.smembers(MarketKeys.inventory(id)));
    }

    /** Returns up to {@code limit} users, by id (a SCAN of {@code users:*}). */
    public static List<Account> users(Jedis conn, int limit) {
        List<String> ids = new ArrayList<>();
        ScanParams params = new ScanParams().match(MarketKeys.user("*")).count(1000);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = conn.scan(cursor, params);
            page.getResult()
                    .forEach(key -> ids.add(key.substring(MarketKeys.user("").length())));
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START) && ids.size() < limit);
        List<Account> accounts = new ArrayList<>();
        for (String id : ids.stream().sorted().limit(limit).toList()) {
            Account account = account(conn, id);
            if (account != null) {
                accounts.add(account);
            }
        }
        return accounts;
    }

    /** Returns the {@code count} cheapest listings. */
    public static List<Listing> cheapest(Jedis conn, int count) {
        List<Listing> listings = new ArrayList<>();
        for (Tuple tuple : conn.zrangeWithScores(MarketKeys.MARKET, 0, count - 1)) {
            String member = tuple.getElement();
            int dot = member.lastIndexOf('.');
            listings.add(new Listing(member.substring(0, dot), member.substring(dot + 1), (long) tuple.getScore()));
        }
        return listings;
    }
}
