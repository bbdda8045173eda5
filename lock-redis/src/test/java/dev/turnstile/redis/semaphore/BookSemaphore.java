package dev.turnstile.redis.semaphore;

import java.util.List;
import java.util.UUID;
import java.util.function.LongSupplier;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.UnifiedJedis;

/**
 * The basic counting semaphore of Redis in Action, listing 6.12, re-implemented for tests: holders
 * in a ZSET scored by the <em>client's</em> clock, timed-out holders pruned by that clock, and a
 * caller admitted if its rank is below the limit. It is here to show what clock skew does to it.
 */
final class BookSemaphore {

    private final UnifiedJedis redis;
    private final String key;
    private final int limit;
    private final long timeoutMillis;
    private final LongSupplier clockMillis;

    BookSemaphore(UnifiedJedis redis, String key, int limit, long timeoutMillis, LongSupplier clockMillis) {
        this.redis = redis;
        this.key = key;
        this.limit = limit;
        this.timeoutMillis = timeoutMillis;
        this.clockMillis = clockMillis;
    }

    /** Returns the holder id, or null if refused. */
    String acquire() {
        String id = UUID.randomUUID().toString();
        long now = this.clockMillis.getAsLong();
        List<Object> results;
        try (AbstractTransaction transaction = this.redis.multi()) {
            transaction.zremrangeByScore(this.key, Double.NEGATIVE_INFINITY, now - this.timeoutMillis);
            transaction.zadd(this.key, now, id);
            transaction.zrank(this.key, id);
            results = transaction.exec();
        }
        if ((Long) results.get(2) < this.limit) {
            return id;
        }
        this.redis.zrem(this.key, id);
        return null;
    }

    /** Whether {@code id} is still within the limit by rank: the book's check for a stolen slot. */
    boolean stillHolds(String id) {
        Long rank = this.redis.zrank(this.key, id);
        return rank != null && rank < this.limit;
    }

    void release(String id) {
        this.redis.zrem(this.key, id);
    }
}
