package dev.turnstile.test.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.UnifiedJedis;

/**
 * A master, its replicas and three Sentinels, all real processes on free loopback ports; the
 * Sentinels declare a silent master down after 1 s and fail over. Every process is a {@link
 * RedisServer}, so a test can kill or freeze the master and watch a replica take over.
 */
public final class RedisSentinelGroup implements AutoCloseable {

    /** The master's name in the Sentinels. */
    public static final String MASTER_NAME = "turnstile-master";

    private final RedisServer master;
    private final List<RedisServer> replicas = new ArrayList<>();
    private final List<RedisServer> sentinels = new ArrayList<>();

    private RedisSentinelGroup(int replicas, java.util.function.UnaryOperator<RedisServer.Builder> replicaOptions) {
        this.master = RedisServer.start();
        for (int i = 0; i < replicas; i++) {
            this.replicas.add(replicaOptions
                    .apply(RedisServer.builder())
                    .arguments("--replicaof", "127.0.0.1", Integer.toString(this.master.port()))
                    .start());
        }
        for (int i = 0; i < 3; i++) {
            this.sentinels.add(RedisServer.builder()
                    .sentinelOf(MASTER_NAME, this.master.port(), 2)
                    .start());
        }
    }

    /** Starts the group and waits until the replicas are in sync and the Sentinels see them. */
    public static RedisSentinelGroup start(int replicas) {
        return start(replicas, java.util.function.UnaryOperator.identity());
    }

    /**
     * Like {@link #start(int)}, with the replicas built with {@code replicaOptions} (for example
     * {@code RedisServer.Builder::shiftableClock}).
     */
    public static RedisSentinelGroup start(
            int replicas, java.util.function.UnaryOperator<RedisServer.Builder> replicaOptions) {
        RedisSentinelGroup group = new RedisSentinelGroup(replicas, replicaOptions);
        try {
            group.awaitReady(Duration.ofSeconds(30));
            return group;
        } catch (RuntimeException e) {
            group.close();
            throw e;
        }
    }

    /** Returns the server that was master at the start. */
    public RedisServer initialMaster() {
        return this.master;
    }

    /** Returns the replicas of the start. */
    public List<RedisServer> replicas() {
        return List.copyOf(this.replicas);
    }

    /** Returns the Sentinels' addresses. */
    public Set<HostAndPort> sentinelAddresses() {
        Set<HostAndPort> addresses = new LinkedHashSet<>();
        this.sentinels.forEach(sentinel -> addresses.add(sentinel.hostAndPort()));
        return addresses;
    }

    /** Returns the master's port as the Sentinels see it now. */
    public int currentMasterPort() {
        try (Jedis sentinel = this.sentinels.get(0).connect()) {
            return Integer.parseInt(
                    sentinel.sentinelGetMasterAddrByName(MASTER_NAME).get(1));
        }
    }

    /** Returns the server the Sentinels name as master now: the initial master or a promoted replica. */
    public RedisServer currentMaster() {
        int port = currentMasterPort();
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(this.master), this.replicas.stream())
                .filter(server -> server.port() == port)
                .findFirst()
                .orElseThrow(() ->
                        new IllegalStateException("The Sentinels name port " + port + ", no server of this group"));
    }

    /** Returns a client that follows the master through failovers; the caller closes it. */
    public UnifiedJedis newClient(Duration timeout) {
        JedisClientConfig master = RedisClients.withProtocol(
                        DefaultJedisClientConfig.builder().timeoutMillis((int) timeout.toMillis()))
                .build();
        JedisClientConfig sentinel =
                DefaultJedisClientConfig.builder().timeoutMillis(1000).build();
        return RedisClients.sentinel(MASTER_NAME, master, sentinelAddresses(), sentinel);
    }

    /** Waits until the Sentinels report a master other than {@code oldPort}. */
    public int awaitFailover(int oldPort, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                int port = currentMasterPort();
                if (port != oldPort) {
                    return port;
                }
            } catch (RuntimeException notYet) {
                // a sentinel may be busy electing
            }
            Polling.pause();
        }
        throw new IllegalStateException("No failover from port " + oldPort + " within " + timeout);
    }

    @Override
    public void close() {
        this.sentinels.forEach(RedisServer::close);
        this.replicas.forEach(RedisServer::close);
        this.master.close();
    }

    private void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (RedisServer replica : this.replicas) {
            while (!info(replica, "replication").contains("master_link_status:up")) {
                check(deadline, "replica " + replica + " did not sync");
            }
        }
        for (RedisServer sentinel : this.sentinels) {
            while (!info(sentinel, "sentinel").contains("slaves=" + this.replicas.size())
                    || !info(sentinel, "sentinel").contains("sentinels=3")) {
                check(deadline, "sentinel " + sentinel + " does not see the group yet");
            }
        }
    }

    private static String info(RedisServer server, String section) {
        try (Jedis jedis = server.connect()) {
            return jedis.info(section);
        } catch (RuntimeException e) {
            return "";
        }
    }

    private static void check(long deadline, String problem) {
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException(problem);
        }
        Polling.pause();
    }
}
