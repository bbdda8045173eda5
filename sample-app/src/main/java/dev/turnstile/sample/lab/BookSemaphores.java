package dev.turnstile.sample.lab;

import java.util.List;
import java.util.UUID;
import java.util.function.LongSupplier;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.params.ZParams;

/**
 * Listings 6.12 to 6.16 of the book: the basic counting semaphore (client clock), the fair
 * semaphore (counter + owner ZSET + ZINTERSTORE), and the fair semaphore acquired under a lock.
 * Times come from {@code clock} so that the lab can skew a client's clock.
 */
final class BookSemaphores {

    private BookSemaphores() {}

    /** Listing 6.12: rank by client timestamp. */
    static String acquireSemaphore(Jedis conn, String name, int limit, long timeoutMillis, LongSupplier clock) {
        String identifier = UUID.randomUUID().toString();
        long now = clock.getAsLong();
        Pipeline pipe = conn.pipelined();
        pipe.zremrangeByScore(name, Double.NEGATIVE_INFINITY, now - timeoutMillis);
        pipe.zadd(name, now, identifier);
        Response<Long> rank = pipe.zrank(name, identifier);
        pipe.sync();
        if (rank.get() < limit) {
            return identifier;
        }
        conn.zrem(name, identifier);
        return null;
    }

    /**
     * Listing 6.14: rank by a counter; the client clock only times holders out.
     *
     * @param betweenCounterAndAdd runs between taking the counter and adding the holder (where
     *     the book's race lives)
     */
    static String acquireFairSemaphore(
            Jedis conn, String name, int limit, long timeoutMillis, LongSupplier clock, Runnable betweenCounterAndAdd) {
        String identifier = UUID.randomUUID().toString();
        String owners = name + ":owner";
        String counterKey = name + ":counter";
        long now = clock.getAsLong();
        Pipeline first = conn.pipelined();
        first.zremrangeByScore(name, Double.NEGATIVE_INFINITY, now - timeoutMillis);
        first.zinterstore(owners, new ZParams().weights(1, 0), owners, name);
        Response<Long> counter = first.incr(counterKey);
        first.sync();
        betweenCounterAndAdd.run();
        Pipeline second = conn.pipelined();
        second.zadd(name, now, identifier);
        second.zadd(owners, counter.get(), identifier);
        Response<Long> rank = second.zrank(owners, identifier);
        second.sync();
        if (rank.get() < limit) {
            return identifier;
        }
        Pipeline undo = conn.pipelined();
        undo.zrem(name, identifier);
        undo.zrem(owners, identifier);
        undo.sync();
        return null;
    }

    /** Listing 6.16: the fair semaphore acquired while holding a short lock on it. */
    static String acquireSemaphoreWithLock(
            Jedis conn, String name, int limit, long timeoutMillis, LongSupplier clock, Runnable betweenCounterAndAdd) {
        String lock = BookLocks.acquireLock(conn, name, 10);
        if (lock == null) {
            return null;
        }
        try {
            return acquireFairSemaphore(conn, name, limit, timeoutMillis, clock, betweenCounterAndAdd);
        } finally {
            BookLocks.releaseLock(conn, name, lock);
        }
    }

    /** Holders by rank still within the limit: the book's test for a stolen slot. */
    static long holdersWithinLimit(Jedis conn, String rankKey, List<String> identifiers, int limit) {
        return identifiers.stream()
                .filter(id -> {
                    Long rank = conn.zrank(rankKey, id);
                    return rank != null && rank < limit;
                })
                .count();
    }
}
