package dev.turnstile.test.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;

/**
 * The Redis user the README gives Turnstile, created on servers the tests started: only the
 * commands Turnstile sends, only keys and channels under its prefix. The default user of those
 * servers stays open for the tests' own reads and writes.
 */
public final class RestrictedRedisUser {

    /** The user's name. */
    public static final String NAME = "turnstile";

    /** The user's password. */
    public static final String PASSWORD = "change-me";

    /** The README's rules for the user, word for word (after {@code ACL SETUSER turnstile on >change-me}). */
    public static final String RULES = "resetkeys ~turnstile:* resetchannels &turnstile:* -@all"
            + " +evalsha +eval +get +set +del +incr +pexpire +pttl +time +exists +type +scan"
            + " +zadd +zcard +zrange +zrangebyscore +zrank +zrem +zremrangebyscore +zscore"
            + " +publish +spublish +pubsub|numsub +subscribe +unsubscribe +ssubscribe +sunsubscribe"
            + " +ping +script|exists +info +wait +cluster|slots +cluster|shards";

    private RestrictedRedisUser() {}

    /** Returns the whole command, as the README prints it. */
    public static String setUserCommand() {
        return "ACL SETUSER " + NAME + " on >" + PASSWORD + " " + RULES;
    }

    /** Creates (or resets) the user on {@code server} with {@link #RULES}. */
    public static void createOn(RedisServer server) {
        createOn(server, NAME, RULES);
    }

    /** Creates (or resets) user {@code name}, password {@link #PASSWORD}, with {@code rules} on {@code server}. */
    public static void createOn(RedisServer server, String name, String rules) {
        List<String> arguments = new ArrayList<>(List.of("reset", "on", ">" + PASSWORD));
        arguments.addAll(List.of(rules.split(" ")));
        try (Jedis admin = server.connect()) {
            admin.aclSetUser(name, arguments.toArray(String[]::new));
        }
    }

    /** Creates the user on every node of {@code cluster}. */
    public static void createOn(RedisCluster cluster) {
        Stream.concat(cluster.masters().stream(), cluster.replicas().stream()).forEach(RestrictedRedisUser::createOn);
    }

    /** Returns a pooled client of {@code server} that authenticates as the user. */
    public static JedisPooled connect(RedisServer server) {
        return connect(server, NAME);
    }

    /** Returns a pooled client of {@code server} that authenticates as user {@code name}. */
    public static JedisPooled connect(RedisServer server, String name) {
        return new JedisPooled(server.hostAndPort(), config(name));
    }

    /** Returns a cluster client that authenticates as the user on every node. */
    public static JedisCluster connect(RedisCluster cluster) {
        return new JedisCluster(cluster.seeds(), config(NAME));
    }

    private static JedisClientConfig config(String name) {
        return DefaultJedisClientConfig.builder()
                .user(name)
                .password(PASSWORD)
                .timeoutMillis((int) Duration.ofSeconds(2).toMillis())
                .build();
    }
}
