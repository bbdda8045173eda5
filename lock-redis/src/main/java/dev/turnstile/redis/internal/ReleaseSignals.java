package dev.turnstile.redis.internal;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.Pool;

/**
 * Wakes waiters when a lock or permit is released, through one shared pub/sub connection per
 * {@code Turnstile} (never one per waiter).
 *
 * <p>A waiter {@link #subscribe subscribes} to a channel, reads the channel's {@link
 * Subscription#generation() generation}, tries to acquire, and on failure {@link
 * Subscription#await awaits} a newer generation. A release published between the try and the wait
 * bumps the generation, so it is never lost. The generation is also bumped when Redis confirms the
 * subscription and when the connection drops, so a waiter retries whenever a release might have
 * gone unseen. Waiters still use a bounded timeout: a signal is a hint, Redis is the truth.
 *
 * <p>Channels are subscribed while they have waiters and unsubscribed after the last one leaves.
 * A lost connection is re-established with backoff and every live channel subscribed again.
 */
final class ReleaseSignals implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReleaseSignals.class);

    /** How often the shared connection is checked with a PING; a missing PONG by the next check drops it. */
    private static final long HEARTBEAT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final UnifiedJedis redis;
    private final Topology topology;
    private final Watchdog heartbeat;
    private final java.util.function.BooleanSupplier sharded;
    private @Nullable ShardedSignalConnections shardedConnections;
    private final String controlChannel;
    private final Map<String, SignalChannel> channels = new ConcurrentHashMap<>();
    private final Object connectionLock = new Object();
    private @Nullable Listener connection;
    private @Nullable Thread thread;
    private volatile boolean closed;
    private volatile long backoffMillis = 50;
    /** Whether an ACL refusal of the signal connection was logged (once per hub). */
    private volatile boolean refusalLogged;

    /**
     * Creates the hub; its connection is opened at the first subscription.
     *
     * @param heartbeat the scheduler that checks the connection with a PING every 10 s
     */
    public ReleaseSignals(
            UnifiedJedis redis,
            Topology topology,
            String prefix,
            Watchdog heartbeat,
            java.util.function.BooleanSupplier sharded) {
        this.redis = redis;
        this.topology = topology;
        this.heartbeat = heartbeat;
        this.sharded = sharded;
        this.controlChannel = prefix + ":signals:" + UUID.randomUUID();
    }

    /** Subscribes to {@code channel} until the returned subscription is closed. */
    public Subscription subscribe(String channel) {
        synchronized (this.connectionLock) {
            SignalChannel state = this.channels.computeIfAbsent(channel, SignalChannel::new);
            boolean live = state.confirmed();
            ShardedSignalConnections shardedNow = shardedConnections();
            if (shardedNow != null) {
                if (state.join()) {
                    shardedNow.add(channel);
                }
                return new Subscription(state, live);
            }
            Listener current = this.connection;
            if (state.join() && current != null) {
                send(() -> current.subscribe(channel));
            }
            startThreadIfNeeded();
            return new Subscription(state, live);
        }
    }

    /** Closes the shared connection; waiters still waiting fall back to their timeouts. */
    @Override
    public void close() {
        Thread running;
        synchronized (this.connectionLock) {
            this.closed = true;
            if (this.shardedConnections != null) {
                this.shardedConnections.close();
            }
            Listener current = this.connection;
            if (current != null) {
                send(current::unsubscribe);
                // Nothing more may be written on it: the connection goes back to the application's
                // pool once the last unsubscribe is answered, and a SUBSCRIBE, UNSUBSCRIBE or PING
                // written after that would leave its reply there for the next borrower to read.
                this.connection = null;
            }
            running = this.thread;
        }
        if (running != null) {
            // Not interrupted: Jedis's pub/sub loop stops at an interrupt without reading the
            // unsubscribe replies, and would hand the connection back to the application's pool with
            // them unread, for the next command to read as its own. Given a moment, the reader reads
            // them and returns a clean connection; a reader blocked on a dead socket is a daemon and
            // ends with it.
            try {
                running.join(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        this.channels.values().forEach(SignalChannel::signal);
    }

    private void leave(SignalChannel state) {
        synchronized (this.connectionLock) {
            if (state.leave()) {
                this.channels.remove(state.name());
                state.unconfirm();
                if (this.shardedConnections != null) {
                    this.shardedConnections.remove(state.name());
                    return;
                }
                Listener current = this.connection;
                if (current != null) {
                    send(() -> current.unsubscribe(state.name()));
                }
            }
        }
    }

    /** The sharded connections, on a Redis 7+ cluster; null for plain pub/sub. Call under the lock. */
    private @Nullable ShardedSignalConnections shardedConnections() {
        if (this.shardedConnections == null && this.sharded.getAsBoolean()) {
            this.shardedConnections = new ShardedSignalConnections(
                    (Topology.Cluster) this.topology,
                    new ShardedSignalConnections.Events() {
                        @Override
                        public void confirmed(String channel) {
                            tell(channel, SignalChannel::confirm);
                        }

                        @Override
                        public void message(String channel) {
                            tell(channel, SignalChannel::signal);
                        }

                        @Override
                        public void lost(java.util.Collection<String> lostChannels) {
                            lostChannels.forEach(channel -> tell(channel, SignalChannel::lost));
                        }
                    },
                    this.controlChannel,
                    this.heartbeat);
        }
        return this.shardedConnections;
    }

    private void startThreadIfNeeded() {
        if (this.thread == null && !this.closed) {
            Thread started = new Thread(this::run, "turnstile-signals");
            started.setDaemon(true);
            boolean first = !this.heartbeatStarted;
            this.heartbeatStarted = true;
            this.thread = started;
            started.start();
            if (first) {
                scheduleHeartbeat();
            }
        }
    }

    private boolean heartbeatStarted;

    private void run() {
        Thread self = Thread.currentThread();
        while (!this.closed && this.thread == self) {
            Listener listener = new Listener();
            try {
                subscribe(listener);
            } catch (RuntimeException e) {
                if (e instanceof JedisException jedis && RedisErrors.isRefusedToUser(jedis)) {
                    if (!this.refusalLogged) {
                        this.refusalLogged = true;
                        log.warn(
                                "Redis refuses release signals to the user Turnstile connects as ({}): waiters"
                                        + " poll at their backoff instead of waking at a release. {}",
                                e.getMessage(),
                                RedisErrors.GRANT_ADVICE);
                    }
                } else {
                    log.debug(
                            "Release signal connection lost ({}); reconnecting in {} ms",
                            e.getMessage(),
                            this.backoffMillis);
                }
            } finally {
                synchronized (this.connectionLock) {
                    if (this.connection == listener) {
                        this.connection = null;
                    }
                }
                // A release may have been published while nobody listened: let every waiter retry.
                this.channels.values().forEach(SignalChannel::signal);
            }
            if (!this.closed && this.thread == self) {
                try {
                    TimeUnit.MILLISECONDS.sleep(this.backoffMillis);
                } catch (InterruptedException e) {
                    return;
                }
                this.backoffMillis = Math.min(this.backoffMillis * 2, 2000);
            }
        }
    }

    /**
     * Runs the subscriber loop until it is unsubscribed from everything. On a pooled client the
     * connection is taken from the pool and destroyed afterwards, never handed back: a connection
     * that was in pub/sub mode may still hold a late pub/sub reply, which the next command to borrow
     * it would read as its own answer.
     */
    private void subscribe(Listener listener) {
        Pool<Connection> pool = this.topology.pool();
        if (pool == null) {
            this.redis.subscribe(listener, this.controlChannel);
            return;
        }
        Connection connection = pool.getResource();
        try {
            listener.proceed(connection, this.controlChannel);
        } finally {
            connection.setBroken(); // destroyed on close, not returned
            connection.close();
        }
    }

    /**
     * Checks the connection: a PING sent at the last check must have been answered by now. A
     * half-open connection (an idle-dropping load balancer, a host gone without closing the socket)
     * would otherwise block the reader forever while waiters hear nothing; it is abandoned and a new
     * connection opened. The abandoned reader is a daemon thread and ends when its socket does.
     */
    private void checkHeartbeat() {
        if (this.closed) {
            return;
        }
        synchronized (this.connectionLock) {
            Listener current = this.connection;
            if (current != null && !this.channels.isEmpty()) {
                if (current.awaitingPong) {
                    log.warn("Release signal connection did not answer a PING within 10s; opening a new one");
                    send(current::unsubscribe);
                    this.connection = null;
                    this.thread = null;
                    this.channels.values().forEach(SignalChannel::lost);
                    startThreadIfNeeded();
                } else {
                    current.awaitingPong = true;
                    send(current::ping);
                }
            }
        }
        scheduleHeartbeat();
    }

    private void scheduleHeartbeat() {
        try {
            this.heartbeat.schedule(this::checkHeartbeat, HEARTBEAT_NANOS);
        } catch (IllegalStateException closedWatchdog) {
            // the Turnstile is closing
        }
    }

    /** Runs {@code action} on {@code channel} if someone waits on it. */
    private void tell(String channel, java.util.function.Consumer<SignalChannel> action) {
        SignalChannel state = this.channels.get(channel);
        if (state != null) {
            action.accept(state);
        }
    }

    private static void send(Runnable command) {
        try {
            command.run();
        } catch (RuntimeException e) {
            // The connection is broken; the reader thread notices and resubscribes everything.
            log.debug("Could not send a pub/sub command: {}", e.getMessage());
        }
    }

    private final class Listener extends JedisPubSub {

        private volatile boolean awaitingPong;

        @Override
        public void onPong(String pattern) {
            this.awaitingPong = false;
        }

        @Override
        public void onSubscribe(String channel, int subscribedChannels) {
            if (channel.equals(controlChannel)) {
                synchronized (connectionLock) {
                    if (closed) {
                        send(this::unsubscribe);
                        return;
                    }
                    connection = this;
                    backoffMillis = 50;
                    channels.values().forEach(SignalChannel::unconfirm);
                    String[] live = channels.keySet().toArray(String[]::new);
                    if (live.length > 0) {
                        send(() -> Listener.this.subscribe(live));
                    }
                }
                return;
            }
            tell(channel, SignalChannel::confirm);
        }

        @Override
        public void onMessage(String channel, String message) {
            tell(channel, SignalChannel::signal);
        }
    }

    /** A waiter's interest in one channel; close it when done waiting. Not thread-safe. */
    public final class Subscription implements AutoCloseable {

        private final SignalChannel channel;
        private final boolean joinedLive;
        private boolean open = true;

        private Subscription(SignalChannel channel, boolean joinedLive) {
            this.channel = channel;
            this.joinedLive = joinedLive;
        }

        /**
         * Returns whether the channel was already subscribed and confirmed when this subscription
         * joined it: a signal sent just before may have been missed, so the waiter should retry at
         * once rather than wait.
         */
        public boolean joinedLive() {
            return this.joinedLive;
        }

        /** Returns the channel's current generation; read it before each acquire attempt. */
        public long generation() {
            return this.channel.generation();
        }

        /**
         * Returns the generation the channel will be at once Redis has confirmed the subscription
         * (the current one if it has): waiting past it waits for a release published after the
         * subscription took effect, not for the confirmation's own signal.
         */
        public long generationOnceConfirmed() {
            return this.channel.generationOnceConfirmed();
        }

        /**
         * Waits until the generation moves past {@code seen}, the timeout passes, or {@code done} is
         * true once the thread was unparked (whoever makes it true unparks the thread). Passing a
         * generation read earlier plus {@code n} waits for {@code n + 1} signals.
         *
         * @return whether a signal arrived
         * @throws InterruptedException if the thread is interrupted while waiting
         */
        public boolean await(long seen, long timeoutNanos, BooleanSupplier done) throws InterruptedException {
            return this.channel.await(seen, timeoutNanos, done);
        }

        @Override
        public void close() {
            if (this.open) {
                this.open = false;
                leave(this.channel);
            }
        }
    }
}
