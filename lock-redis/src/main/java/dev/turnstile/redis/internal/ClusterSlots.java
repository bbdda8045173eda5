package dev.turnstile.redis.internal;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.resps.ClusterShardInfo;
import redis.clients.jedis.resps.ClusterShardNodeInfo;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Which master of a cluster owns each slot, as {@code CLUSTER SHARDS} says, for the sharded release
 * signals: where a channel is subscribed, and which anchor channel keeps a master's subscriber
 * connection open. Read once and kept until {@link #forget() forgotten} (a slot moved, a connection
 * failed); never kept while some slot has no master online. Not thread-safe: {@link
 * ShardedSignalConnections} calls it under its lock.
 */
final class ClusterSlots {

    private static final Logger log = LoggerFactory.getLogger(ShardedSignalConnections.class);

    private final Topology.Cluster cluster;
    private final String anchorPrefix;
    private String @Nullable [] slotOwners;

    /**
     * @param anchorPrefix prefix of the per-node anchor channels that keep each connection open
     *     while it carries no waiter's channel
     */
    ClusterSlots(Topology.Cluster cluster, String anchorPrefix) {
        this.cluster = cluster;
        this.anchorPrefix = anchorPrefix;
    }

    /** Forgets the slots' owners: they are read again at the next question. */
    void forget() {
        this.slotOwners = null;
    }

    /** A channel in a slot that {@code node} owns: it keeps the node's connection subscribed. */
    String anchorFor(String node) {
        String[] owners = this.slotOwners;
        for (int i = 0; owners != null && i < 100_000; i++) {
            String anchor = this.anchorPrefix + ":{" + i + "}";
            if (node.equals(owners[JedisClusterCRC16.getSlot(anchor)])) {
                return anchor;
            }
        }
        return this.anchorPrefix + ":{0}";
    }

    /** Whether an ACL refusal of CLUSTER SHARDS was logged (once). */
    private boolean refusalLogged;

    /**
     * The master that owns {@code channel}'s slot, or null while that is unknown. The owners are
     * read at the first question after {@link #forget()}.
     */
    @Nullable
    String ownerOf(String channel) {
        if (this.slotOwners == null) {
            this.slotOwners = loadSlotOwners();
        }
        return this.slotOwners == null ? null : this.slotOwners[JedisClusterCRC16.getSlot(channel)];
    }

    /** The master of every slot, or null while some slot has none online (never cached then). */
    private String @Nullable [] loadSlotOwners() {
        for (ConnectionPool pool : this.cluster.nodes().values()) {
            try (Connection connection = pool.getResource()) {
                String[] owners = new String[16384];
                for (ClusterShardInfo shard : new Jedis(connection).clusterShards()) {
                    String master = null;
                    for (ClusterShardNodeInfo node : shard.getNodes()) {
                        if ("master".equals(node.getRole()) && "online".equals(node.getHealth())) {
                            master = node.getIp() + ":" + node.getPort();
                        }
                    }
                    for (List<Long> range : shard.getSlots()) {
                        for (long slot = range.get(0); slot <= range.get(1); slot++) {
                            owners[(int) slot] = master;
                        }
                    }
                }
                for (String owner : owners) {
                    if (owner == null) {
                        return null;
                    }
                }
                return owners;
            } catch (RuntimeException e) {
                if (e instanceof JedisException jedis && RedisErrors.isRefusedToUser(jedis)) {
                    if (this.refusalLogged) {
                        return null;
                    }
                    this.refusalLogged = true;
                    log.warn(
                            "Redis refuses CLUSTER SHARDS to the user Turnstile connects as ({}): waiters poll"
                                    + " at their backoff instead of waking at a release. {}",
                            e.getMessage(),
                            RedisErrors.GRANT_ADVICE);
                    return null;
                }
                log.debug("Could not read the cluster's shards from one node: {}", e.getMessage());
            }
        }
        return null;
    }
}
