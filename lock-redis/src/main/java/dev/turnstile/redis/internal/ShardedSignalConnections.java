package dev.turnstile.redis.internal;

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
import redis.clients.jedis.JedisShardedPubSub;

/**
 * Release signals over sharded pub/sub ({@code SSUBSCRIBE}, Redis 7+) on a cluster: a release is
 * published only to the shard that owns its channel's slot, not broadcast over the cluster bus.
 * One subscriber connection per master that owns a subscribed channel (not one per waiter), kept
 * open by an anchor channel in one of that master's slots and checked every 10 s.
 *
 * <p>Slot owners come from {@code CLUSTER SHARDS}. A channel whose owner is unknown (a failover in
 * progress) is retried; a channel the server unsubscribes (its slot moved), a connection that fails
 * or stops answering: each channel it carried is reported lost (waiters retry) and subscribed again
 * where its slot now lives. Subscriber connections are made for the purpose and never returned to
 * a pool. Thread-safe.
 */
final class ShardedSignalConnections {

    private static final Logger log = LoggerFactory.getLogger(ShardedSignalConnections.class);
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final long HEARTBEAT_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** What the connections tell the signal hub. */
    interface Events {
        /** Redis confirmed the subscription of {@code channel}. */
        void confirmed(String channel);

        /** A release was published on {@code channel}. */
        void message(String channel);

        /** These channels may have missed messages (connection lost, slot moved). */
        void lost(Collection<String> channels);
    }

    private final Topology.Cluster cluster;
    private final Events events;
    private final Watchdog scheduler;
    private final Map<String, NodeSubscriber> nodes = new HashMap<>();
    private final Map<String, String> channelNodes = new HashMap<>();
    private final Set<String> unplaced = new LinkedHashSet<>();
    private final ClusterSlots slots;
    private boolean retryScheduled;
    private boolean heartbeatScheduled;
    private boolean closed;

    /**
     * @param anchorPrefix prefix of the per-node anchor channels that keep each connection open
     *     while it carries no waiter's channel (so waits do not pay for a new connection)
     * @param scheduler runs retries and the heartbeat
     */
    ShardedSignalConnections(Topology.Cluster cluster, Events events, String anchorPrefix, Watchdog scheduler) {
        this.cluster = cluster;
        this.slots = new ClusterSlots(cluster, anchorPrefix);
        this.events = events;
        this.scheduler = scheduler;
    }

    synchronized void add(String channel) {
        if (this.closed) {
            return;
        }
        String node = this.slots.ownerOf(channel);
        if (node == null) {
            this.unplaced.add(channel);
            this.events.lost(List.of(channel));
            scheduleRetry();
            return;
        }
        this.unplaced.remove(channel);
        this.channelNodes.put(channel, node);
        this.nodes
                .computeIfAbsent(node, owner -> new NodeSubscriber(owner, this.slots.anchorFor(owner)))
                .add(channel);
        scheduleHeartbeat();
    }

    synchronized void remove(String channel) {
        this.unplaced.remove(channel);
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
        this.unplaced.clear();
    }

    /** Places {@code channel} again, at its slot's current owner, if it is still wanted there. */
    private synchronized void relocate(String channel, String fromNode) {
        if (fromNode.equals(this.channelNodes.get(channel))) {
            this.channelNodes.remove(channel);
            this.slots.forget();
            add(channel);
        }
    }

    /** A node's connection ended with these channels still wanted: place them again after a pause. */
    private void resubscribe(String node, Set<String> channels, long backoffNanos) {
        this.events.lost(channels);
        try {
            this.scheduler.schedule(
                    () -> {
                        synchronized (this) {
                            this.slots.forget();
                            channels.forEach(channel -> relocate(channel, node));
                        }
                    },
                    backoffNanos);
        } catch (IllegalStateException closedScheduler) {
            // closing
        }
    }

    private void scheduleRetry() {
        if (this.retryScheduled) {
            return;
        }
        this.retryScheduled = true;
        try {
            this.scheduler.schedule(
                    () -> {
                        synchronized (this) {
                            this.retryScheduled = false;
                            this.slots.forget();
                            new ArrayList<>(this.unplaced).forEach(this::add);
                        }
                    },
                    RETRY_NANOS);
        } catch (IllegalStateException closedScheduler) {
            this.retryScheduled = false;
        }
    }

    private void scheduleHeartbeat() {
        if (this.heartbeatScheduled) {
            return;
        }
        this.heartbeatScheduled = true;
        try {
            this.scheduler.schedule(this::heartbeat, HEARTBEAT_NANOS);
        } catch (IllegalStateException closedScheduler) {
            this.heartbeatScheduled = false;
        }
    }

    private void heartbeat() {
        List<NodeSubscriber> current;
        synchronized (this) {
            this.heartbeatScheduled = false;
            if (this.closed) {
                return;
            }
            current = new ArrayList<>(this.nodes.values());
        }
        current.forEach(NodeSubscriber::checkAlive);
        synchronized (this) {
            if (!this.nodes.isEmpty()) {
                scheduleHeartbeat();
            }
        }
    }

    /** One master's subscriber connection and the channels it carries. */
    private final class NodeSubscriber extends JedisShardedPubSub {

        private final String node;
        private final String anchor;
        private final Set<String> channels = new LinkedHashSet<>();
        private final Set<String> requested = new LinkedHashSet<>();
        private @Nullable Thread thread;
        private @Nullable Connection connection;
        private boolean active;
        private boolean stopping;
        private volatile long lastHeard = System.nanoTime();
        private long backoffMillis = 50;

        NodeSubscriber(String node, String anchor) {
            this.node = node;
            this.anchor = anchor;
        }

        /** Adds a channel; opens the connection if there is none. */
        synchronized void add(String channel) {
            if (!this.channels.add(channel)) {
                return;
            }
            if (this.active) {
                this.requested.add(channel);
                send(() -> ssubscribe(channel));
            } else if (this.thread == null && !this.stopping) {
                Thread started = new Thread(this::run, "turnstile-signals-" + this.node);
                started.setDaemon(true);
                this.thread = started;
                started.start();
            }
            // else connecting: subscribed once the anchor is confirmed
        }

        /** Removes a channel; the connection stays open on its anchor for the next waiter. */
        synchronized void remove(String channel) {
            this.channels.remove(channel);
            if (this.requested.remove(channel) && this.active) {
                send(() -> sunsubscribe(channel));
            }
        }

        synchronized void stop() {
            this.stopping = true;
            if (this.active) {
                send(this::sunsubscribe);
            }
        }

        /** Heartbeat: a connection silent for two periods is dropped; otherwise ask for a reply. */
        void checkAlive() {
            Connection current;
            synchronized (this) {
                current = this.connection;
                if (!this.active || current == null) {
                    return;
                }
            }
            if (System.nanoTime() - this.lastHeard > 2 * HEARTBEAT_NANOS) {
                log.warn("Sharded release signal connection to {} stopped answering; opening a new one", this.node);
                current.disconnect(); // the reader fails, and its channels are placed again
            } else {
                synchronized (this) {
                    send(() -> ssubscribe(this.anchor)); // the server answers an already subscribed channel too
                }
            }
        }

        @Override
        public void onSSubscribe(String channel, int subscribedChannels) {
            this.lastHeard = System.nanoTime();
            synchronized (this) {
                if (this.stopping) {
                    send(this::sunsubscribe);
                    return;
                }
                if (!this.active) {
                    this.active = true;
                    this.backoffMillis = 50;
                    for (String wanted : this.channels) {
                        if (this.requested.add(wanted)) {
                            send(() -> ssubscribe(wanted)); // one command per channel: slots may differ
                        }
                    }
                }
            }
            if (!channel.equals(this.anchor)) {
                ShardedSignalConnections.this.events.confirmed(channel);
            }
        }

        @Override
        public void onSUnsubscribe(String channel, int subscribedChannels) {
            this.lastHeard = System.nanoTime();
            boolean movedAway;
            synchronized (this) {
                // We forget a channel before asking to unsubscribe it: one still requested was
                // unsubscribed by the server, because its slot moved to another master.
                movedAway = !this.stopping && !channel.equals(this.anchor) && this.requested.remove(channel);
                if (movedAway) {
                    this.channels.remove(channel);
                }
            }
            if (movedAway) {
                ShardedSignalConnections.this.events.lost(List.of(channel));
                String from = this.node;
                try {
                    ShardedSignalConnections.this.scheduler.schedule(() -> relocate(channel, from), RETRY_NANOS);
                } catch (IllegalStateException closedScheduler) {
                    // closing
                }
            }
        }

        @Override
        public void onSMessage(String channel, String message) {
            this.lastHeard = System.nanoTime();
            ShardedSignalConnections.this.events.message(channel);
        }

        private void run() {
            ConnectionPool pool = ShardedSignalConnections.this.cluster.nodes().get(this.node);
            Connection own = null;
            try {
                if (pool != null) {
                    own = pool.getFactory().makeObject().getObject();
                    synchronized (this) {
                        this.connection = own;
                        this.requested.clear();
                    }
                    this.lastHeard = System.nanoTime();
                    proceed(own, this.anchor);
                }
            } catch (Exception e) {
                log.debug("Sharded signal connection to {} ended: {}", this.node, e.getMessage());
            } finally {
                if (own != null) {
                    own.close();
                }
            }
            Set<String> remaining;
            long backoff;
            synchronized (ShardedSignalConnections.this) {
                synchronized (this) {
                    this.active = false;
                    this.thread = null;
                    this.connection = null;
                    remaining = this.stopping ? Set.of() : new LinkedHashSet<>(this.channels);
                    backoff = TimeUnit.MILLISECONDS.toNanos(this.backoffMillis);
                    this.backoffMillis = Math.min(this.backoffMillis * 2, 2000);
                    this.stopping = true; // this subscriber is done; a new one takes over
                    if (ShardedSignalConnections.this.nodes.get(this.node) == this) {
                        ShardedSignalConnections.this.nodes.remove(this.node);
                    }
                }
            }
            if (!remaining.isEmpty()) {
                resubscribe(this.node, remaining, backoff);
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
}
