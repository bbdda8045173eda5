package dev.turnstile.redis.support;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisShardedPubSub;
import redis.clients.jedis.resps.ClusterShardInfo;
import redis.clients.jedis.resps.ClusterShardNodeInfo;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Release signals over sharded pub/sub ({@code SSUBSCRIBE}, Redis 7+) on a cluster: a release is
 * published only to the shard that owns its channel's slot, not broadcast over the cluster bus.
 * One subscriber connection per master that owns a subscribed channel (not one per waiter).
 *
 * <p>Slot owners come from {@code CLUSTER SHARDS}. When a connection fails or a slot moves, every
 * channel it carried is reported lost (waiters retry) and subscribed again where its slot now
 * lives, after a backoff. Thread-safe.
 */
final class ShardedSignalConnections {

    private static final Logger log = LoggerFactory.getLogger(ShardedSignalConnections.class);

    /** What the connections tell the signal hub. */
    interface Events {
        /** Redis confirmed the subscription of {@code channel}. */
        void confirmed(String channel);

        /** A release was published on {@code channel}. */
        void message(String channel);

        /** These channels may have missed messages (connection lost, slot moved). */
        void lost(Collection<String> channels);
    }

    private final JedisCluster cluster;
    private final Events events;
    private final String anchorPrefix;
    private final Map<String, NodeSubscriber> nodes = new HashMap<>();
    private final Map<String, String> channelNodes = new HashMap<>();
    private @Nullable String[] slotOwners;
    private boolean closed;

    /**
     * @param anchorPrefix prefix of the per-node anchor channels that keep each connection open
     *     while it carries no waiter's channel (so waits do not pay for a new connection)
     */
    ShardedSignalConnections(JedisCluster cluster, Events events, String anchorPrefix) {
        this.cluster = cluster;
        this.events = events;
        this.anchorPrefix = anchorPrefix;
    }

    synchronized void add(String channel) {
        if (this.closed) {
            return;
        }
        String node = ownerOf(channel);
        if (node == null) {
            this.events.lost(List.of(channel)); // unknown owner now; the waiter's backoff retries
            return;
        }
        this.channelNodes.put(channel, node);
        this.nodes
                .computeIfAbsent(node, owner -> new NodeSubscriber(owner, anchorFor(owner)))
                .add(channel);
    }

    synchronized void remove(String channel) {
        String node = this.channelNodes.remove(channel);
        NodeSubscriber subscriber = node == null ? null : this.nodes.get(node);
        if (subscriber != null) {
            subscriber.remove(channel);
        }
    }

    synchronized void close() {
        this.closed = true;
        this.nodes.values().forEach(NodeSubscriber::stop);
        this.nodes.clear();
        this.channelNodes.clear();
    }

    /** A node's subscriber ended with these channels still wanted: place them again. */
    private void resubscribe(NodeSubscriber ended, Set<String> channels) {
        synchronized (this) {
            if (this.nodes.get(ended.node) == ended) {
                this.nodes.remove(ended.node);
            }
            this.slotOwners = null; // the slot map may be stale
        }
        this.events.lost(channels);
        try {
            TimeUnit.MILLISECONDS.sleep(ended.backoffMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        synchronized (this) {
            for (String channel : channels) {
                if (ended.node.equals(this.channelNodes.get(channel))) {
                    this.channelNodes.remove(channel);
                    add(channel);
                }
            }
        }
    }

    /** A channel in a slot that {@code node} owns: it keeps the node's connection subscribed. */
    private String anchorFor(String node) {
        String[] owners = this.slotOwners;
        for (int i = 0; owners != null && i < 100_000; i++) {
            String anchor = this.anchorPrefix + ":{" + i + "}";
            if (node.equals(owners[JedisClusterCRC16.getSlot(anchor)])) {
                return anchor;
            }
        }
        return this.anchorPrefix + ":{0}";
    }

    private @Nullable String ownerOf(String channel) {
        if (this.slotOwners == null) {
            this.slotOwners = loadSlotOwners();
        }
        return this.slotOwners == null ? null : this.slotOwners[JedisClusterCRC16.getSlot(channel)];
    }

    private String @Nullable [] loadSlotOwners() {
        for (ConnectionPool pool : this.cluster.getClusterNodes().values()) {
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
                return owners;
            } catch (RuntimeException e) {
                log.debug("Could not read the cluster's shards from one node: {}", e.getMessage());
            }
        }
        return null;
    }

    /** One master's subscriber connection and the channels it carries. */
    private final class NodeSubscriber extends JedisShardedPubSub {

        private final String node;
        private final String anchor;
        private final Set<String> channels = new LinkedHashSet<>();
        private final Set<String> requested = new LinkedHashSet<>();
        private @Nullable Thread thread;
        private boolean active;
        private boolean stopping;
        private long backoffMillis = 50;

        NodeSubscriber(String node, String anchor) {
            this.node = node;
            this.anchor = anchor;
        }

        /** Adds a channel; starts the connection with it if there is none. */
        void add(String channel) {
            synchronized (this) {
                if (!this.channels.add(channel)) {
                    return;
                }
                if (this.active) {
                    this.requested.add(channel);
                    send(() -> ssubscribe(channel));
                    return;
                }
                if (this.thread != null) {
                    return; // connecting: the channel goes with the first SSUBSCRIBE
                }
                Thread started = new Thread(this::run, "turnstile-signals-" + this.node);
                started.setDaemon(true);
                this.thread = started;
                started.start();
            }
        }

        /** Removes a channel; the connection stays open on its anchor for the next waiter. */
        synchronized void remove(String channel) {
            if (this.channels.remove(channel) && this.active) {
                this.requested.remove(channel);
                send(() -> sunsubscribe(channel));
            }
        }

        synchronized void stop() {
            this.stopping = true;
            if (this.active) {
                send(this::sunsubscribe);
            }
        }

        @Override
        public void onSSubscribe(String channel, int subscribedChannels) {
            synchronized (this) {
                if (!this.active) {
                    this.active = true;
                    this.backoffMillis = 50;
                    // Channels added while connecting were not in the first SSUBSCRIBE.
                    String[] pending = this.channels.stream()
                            .filter(wanted -> !this.requested.contains(wanted))
                            .toArray(String[]::new);
                    for (String wanted : pending) {
                        this.requested.add(wanted);
                        send(() -> ssubscribe(wanted));
                    }
                }
            }
            if (!channel.equals(this.anchor)) {
                ShardedSignalConnections.this.events.confirmed(channel);
            }
        }

        @Override
        public void onSMessage(String channel, String message) {
            ShardedSignalConnections.this.events.message(channel);
        }

        private void run() {
            String[] initial;
            synchronized (this) {
                // SSUBSCRIBE takes channels of one slot only: the anchor first, then one command per
                // channel once the connection is confirmed.
                this.requested.clear();
                initial = new String[] {this.anchor};
            }
            ConnectionPool pool =
                    ShardedSignalConnections.this.cluster.getClusterNodes().get(this.node);
            if (pool != null) {
                // A connection of its own, made by the pool's factory but never returned to the pool:
                // a subscribed connection put back in a pool would hand pushed messages to commands.
                Connection connection = null;
                try {
                    connection = pool.getFactory().makeObject().getObject();
                    proceed(connection, initial);
                } catch (Exception e) {
                    log.debug("Sharded signal connection to {} ended: {}", this.node, e.getMessage());
                } finally {
                    if (connection != null) {
                        connection.close();
                    }
                }
            }
            Set<String> remaining;
            synchronized (this) {
                this.active = false;
                this.thread = null;
                remaining = this.stopping ? Set.of() : new LinkedHashSet<>(this.channels);
                this.backoffMillis = Math.min(this.backoffMillis * 2, 2000);
            }
            if (!remaining.isEmpty()) {
                resubscribe(this, remaining);
            }
        }

        private void send(Runnable command) {
            try {
                command.run();
            } catch (RuntimeException e) {
                log.debug("Could not send a sharded pub/sub command to {}: {}", this.node, e.getMessage());
            }
        }
    }

    List<String> nodesInUse() {
        synchronized (this) {
            return new ArrayList<>(this.nodes.keySet());
        }
    }
}
