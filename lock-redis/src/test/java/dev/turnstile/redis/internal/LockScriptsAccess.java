package dev.turnstile.redis.internal;

import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/** Runs the lock's scripts directly, for tests of what the scripts themselves answer. */
public final class LockScriptsAccess {

    private LockScriptsAccess() {}

    /** Runs the lock's acquire script. */
    public static Object acquire(UnifiedJedis redis, List<String> keys, List<String> args) {
        return LockScripts.ACQUIRE.run(redis, keys, args);
    }

    /** Runs the lock's release script. */
    public static Object release(UnifiedJedis redis, List<String> keys, List<String> args) {
        return LockScripts.RELEASE.run(redis, keys, args);
    }
}
