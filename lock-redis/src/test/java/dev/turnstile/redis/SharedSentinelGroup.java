package dev.turnstile.redis;

import dev.turnstile.test.redis.RedisSentinelGroup;
import java.time.Duration;
import redis.clients.jedis.UnifiedJedis;

/**
 * One Sentinel group (a master, one replica, three Sentinels) for the contract suites that run
 * through Sentinel, started on first use and reaped when the test JVM exits (every process is a
 * {@code RedisServer}, which a shutdown hook kills). No test of these suites fails the master over;
 * should the Sentinels do so on a loaded machine, each test still starts on the current master.
 */
final class SharedSentinelGroup {

    private static RedisSentinelGroup group;

    private SharedSentinelGroup() {}

    /**
     * Empties the master, then returns a new client that finds it through the Sentinels: the contract
     * suites share the group and use the same names, so each of their tests starts from nothing.
     */
    static synchronized UnifiedJedis newClientOnEmptyMaster() {
        group().currentMaster().flushAll();
        return group.newClient(Duration.ofSeconds(2));
    }

    /** The group, started on first use. */
    static synchronized RedisSentinelGroup group() {
        if (group == null) {
            group = RedisSentinelGroup.start(1);
        }
        return group;
    }
}
