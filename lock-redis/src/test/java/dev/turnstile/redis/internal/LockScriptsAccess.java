package dev.turnstile.redis.internal;

import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/** Runs the lock's scripts directly, for tests of what the scripts themselves answer. */
public final class LockScriptsAccess {

    private LockScriptsAccess() {}

    /**
     * Runs the lock's acquire script.
     *
     * @return the fencing token granted, or 0 if the lock is held by another owner
     */
    public static long acquire(UnifiedJedis redis, List<String> keys, List<String> args) {
        LockScripts.Acquired acquired = LockScripts.Acquired.of(LockScripts.ACQUIRE.run(redis, keys, args));
        return acquired.granted() ? acquired.value() : 0;
    }

    /** Runs the lock's release script. */
    public static Object release(UnifiedJedis redis, List<String> keys, List<String> args) {
        return LockScripts.RELEASE.run(redis, keys, args);
    }
}
