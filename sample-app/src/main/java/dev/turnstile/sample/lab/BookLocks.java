package dev.turnstile.sample.lab;

import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;

/** Listings 6.8 and 6.11 of the book: {@code acquire_lock} and {@code acquire_lock_with_timeout}. */
final class BookLocks {

    private BookLocks() {}

    /** Listing 6.8: SETNX only. A holder that dies never releases: the lock is held forever. */
    static String acquireLock(Jedis conn, String lockName, long acquireTimeoutMillis) {
        String identifier = UUID.randomUUID().toString();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(acquireTimeoutMillis);
        while (System.nanoTime() < end) {
            if (conn.setnx("lock:" + lockName, identifier) == 1) {
                return identifier;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return null;
    }

    /**
     * Listing 6.11: SETNX, then EXPIRE in a second command; a caller that finds the lock without a
     * TTL (its holder died between the two) repairs it by setting one.
     *
     * @param crashBeforeExpire simulate the holder dying between SETNX and EXPIRE
     */
    static String acquireLockWithTimeout(
            Jedis conn, String lockName, long acquireTimeoutMillis, int lockTimeoutSeconds, boolean crashBeforeExpire) {
        String identifier = UUID.randomUUID().toString();
        String key = "lock:" + lockName;
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(acquireTimeoutMillis);
        while (System.nanoTime() < end) {
            if (conn.setnx(key, identifier) == 1) {
                if (crashBeforeExpire) {
                    return identifier; // the process died here: no EXPIRE was sent
                }
                conn.expire(key, lockTimeoutSeconds);
                return identifier;
            } else if (conn.ttl(key) == -1) {
                conn.expire(key, lockTimeoutSeconds);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return null;
    }

    /** Listing 6.9's release: WATCH, check the owner, MULTI/DEL/EXEC. */
    static boolean releaseLock(Jedis conn, String lockName, String identifier) {
        String key = "lock:" + lockName;
        while (true) {
            conn.watch(key);
            if (identifier.equals(conn.get(key))) {
                Transaction transaction = conn.multi();
                transaction.del(key);
                if (transaction.exec() != null) {
                    return true;
                }
                continue;
            }
            conn.unwatch();
            return false;
        }
    }
}
