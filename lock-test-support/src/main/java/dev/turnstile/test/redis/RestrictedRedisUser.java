package dev.turnstile.test.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.UnifiedJedis;

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

    /**
     * The README's rules for the user that every server takes, Redis 6.2 to Valkey 8, word for word
     * (after {@code ACL SETUSER turnstile on >change-me}).
     */
    public static final String RULES = "resetkeys ~turnstile:* resetchannels &turnstile:* -@all"
            + " +evalsha +eval +get +set +del +incr +pexpire +pttl +time +exists +type +scan"
            + " +zadd +zcard +zrange +zrangebyscore +zrank +zrem +zremrangebyscore +zscore"
            + " +publish +pubsub|numsub +subscribe +unsubscribe"
            + " +ping +script|exists +info +wait +cluster|slots +cluster|shards";

    /** What the README adds on Redis 7.0 and newer and on Valkey: sharded pub/sub, which a cluster's release signals use. */
    public static final String SHARDED_PUBSUB_RULES = "+spublish +ssubscribe +sunsubscribe";

    /**
     * What the README adds on every server but Redis 7.0 (which refuses the rule, having no such
     * subcommand, and answers it "unknown subcommand" without an ACL check): {@code CLIENT
     * SETINFO}, which Jedis sends on every new connection (refused, it is ignored by Jedis but
     * fills the server's ACL log; Redis 6.2 logs it as {@code client}).
     */
    public static final String CLIENT_SETINFO_RULES = "+client|setinfo";

    private RestrictedRedisUser() {}

    /** Returns the base command, as the README prints it. */
    public static String setUserCommand() {
        return "ACL SETUSER " + NAME + " on >" + PASSWORD + " " + RULES;
    }

    /** Returns the README's commands that add {@code rules} to the user, as the README prints them. */
    public static String addCommand(String rules) {
        return "ACL SETUSER " + NAME + " " + rules;
    }

    /** Returns the README's rules for {@code server}: {@link #RULES} and what its version adds. */
    public static String rulesFor(RedisServer server) {
        return rulesFor(server.version());
    }

    /** Returns the README's rules for a server of {@code version}: {@link #RULES} and what that version adds. */
    public static String rulesFor(RedisVersion version) {
        StringBuilder rules = new StringBuilder(RULES);
        if (version.atLeast(7, 0)) {
            rules.append(' ').append(SHARDED_PUBSUB_RULES);
        }
        if (!version.atLeast(7, 0) || version.atLeast(7, 2)) {
            rules.append(' ').append(CLIENT_SETINFO_RULES);
        }
        return rules.toString();
    }

    /** Creates (or resets) the user on {@code server} with the README's rules for its version. */
    public static void createOn(RedisServer server) {
        createOn(server, NAME, rulesFor(server));
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
    public static UnifiedJedis connect(RedisServer server) {
        return connect(server, NAME);
    }

    /** Returns a pooled client of {@code server} that authenticates as user {@code name}. */
    public static UnifiedJedis connect(RedisServer server, String name) {
        return RedisClients.standalone(server.hostAndPort(), config(name));
    }

    /** Returns a cluster client that authenticates as the user on every node. */
    public static UnifiedJedis connect(RedisCluster cluster) {
        return RedisClients.cluster(cluster.seeds(), config(NAME), 5);
    }

    private static JedisClientConfig config(String name) {
        return RedisClients.withProtocol(DefaultJedisClientConfig.builder())
                .user(name)
                .password(PASSWORD)
                .timeoutMillis((int) Duration.ofSeconds(2).toMillis())
                .build();
    }
}
