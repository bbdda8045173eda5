package dev.turnstile.redis.internal;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.util.Pool;

/**
 * Script calls to the Redlock masters made on the caller's thread: the call is written to a ready
 * connection of each master and flushed at once, then every reply is read, each read bounded by the
 * caller's deadline. A round to all the masters so costs about one round trip, with no thread
 * hand-off.
 *
 * <p>The caller never connects, borrows or waits for a connection: each master keeps a few
 * connections taken from its client's own pool (at most 4, and at most half the pool), and
 * they are taken from the pool only on that master's own pool of threads, when a call found none
 * ready. A master is called this way only while it has one ready and its last direct call answered
 * in time; one that did not is <em>suspect</em>, its ready connections go back to the pool, and its
 * calls go through its pool of threads until one of them answers within the deadline again. So a
 * stalled master costs one direct call its node timeout, and never holds the caller up longer.
 * Virtual threads (an interrupt closes their socket) and clients without a pool of their own (a Sentinel or cluster client)
 * are always called through the pools. Thread-safe.
 *
 * <p>A call that did not answer in time may still run on its master later: its connection is
 * dropped, and whatever is sent to that master after it (a release, on another connection) reaches
 * the server after the dropped connection's bytes, which it reads first.
 */
final class DirectCalls implements AutoCloseable {

    /** A ready connection unused for this long goes back to the pool instead: the server may have dropped it. */
    private static final long MAX_IDLE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Master[] masters;
    private volatile boolean closed;

    /** @param executors each master's pool of threads, by index: where its connections are taken from its pool */
    DirectCalls(List<UnifiedJedis> masters, IntFunction<Executor> executors) {
        this.masters = new Master[masters.size()];
        for (int i = 0; i < masters.size(); i++) {
            this.masters[i] = new Master(poolOf(masters.get(i)), executors.apply(i));
        }
    }

    /**
     * Writes {@code script} to a ready connection of master {@code index} and flushes it.
     *
     * @return the call in flight, or null when the master must be called through its pool of
     *     threads instead (not pooled, no connection ready, suspect, a virtual thread, or the write
     *     failed before anything was sent)
     */
    @Nullable
    Sent send(int index, LuaScript script, List<String> keys, List<String> args) {
        Master master = this.masters[index];
        if (master.capacity == 0 || master.suspect || this.closed || VirtualThreads.current()) {
            return null;
        }
        Connection connection = master.take();
        if (connection == null) {
            master.refill();
            return null;
        }
        CommandObject<Object> call = scriptCall(Protocol.Command.EVALSHA, script.sha(), keys, args);
        try {
            connection.sendCommand(call.getArguments());
            connection.getMany(0); // flushes; reads nothing
        } catch (RuntimeException e) {
            master.drop(connection);
            master.suspect();
            return null;
        }
        return new Sent(master, connection, call, script, keys, args);
    }

    /** Marks master {@code index} fit for direct calls again: a call through its pool answered in time. */
    void answered(int index) {
        this.masters[index].suspect = false;
    }

    /** Returns how many connections master {@code index} has ready now (for tests). */
    int ready(int index) {
        return this.masters[index].ready.size();
    }

    /**
     * Gives every ready connection back to its pool, and every connection on its way back there
     * (a give-back queued for a master's threads, which may be stuck on a stalled master, and stop
     * next); a connection in use goes back when its call ends, within the caller's deadline.
     */
    @Override
    public void close() {
        this.closed = true;
        for (Master master : this.masters) {
            master.drainReady();
            master.drainReturning();
        }
    }

    /** The client's own pool to its one server, or null when it has none. */
    private static @Nullable Pool<Connection> poolOf(UnifiedJedis client) {
        return Topology.of(client).pool();
    }

    /**
     * {@code EVALSHA sha} or {@code EVAL source} with the keys and arguments, its reply decoded as the
     * client decodes a script's (built here: Jedis 8 has no {@code CommandObjects} without a protocol).
     */
    private static CommandObject<Object> scriptCall(
            Protocol.Command command, String script, List<String> keys, List<String> args) {
        CommandArguments arguments = new CommandArguments(command)
                .add(script)
                .add(keys.size())
                .keys(keys)
                .addObjects(args);
        return new CommandObject<>(arguments, BuilderFactory.AGGRESSIVE_ENCODED_OBJECT);
    }

    /** One master's ready connections. */
    private final class Master {

        private final @Nullable Pool<Connection> pool;
        private final Executor executor;
        /** How many connections this master may hold: at most 4, at most half its pool. */
        private final int capacity;

        private final ConcurrentLinkedDeque<Ready> ready = new ConcurrentLinkedDeque<>();
        /** Connections whose give-back is queued for this master's threads, not run yet. */
        private final java.util.concurrent.ConcurrentLinkedQueue<Connection> returning =
                new java.util.concurrent.ConcurrentLinkedQueue<>();

        private final AtomicInteger held = new AtomicInteger();
        private final AtomicBoolean refilling = new AtomicBoolean();
        private volatile boolean suspect;

        Master(@Nullable Pool<Connection> pool, Executor executor) {
            this.pool = pool;
            this.executor = executor;
            this.capacity = pool == null ? 0 : Math.max(0, Math.min(4, pool.getMaxTotal() / 2));
        }

        /**
         * A ready connection not idle for too long, or null. The least recently used one goes back to
         * the pool once it has been idle too long, so connections a burst took do not stay held.
         */
        @Nullable
        Connection take() {
            Ready oldest = this.ready.peekLast();
            if (oldest != null && stale(oldest) && this.ready.removeLastOccurrence(oldest)) {
                giveBack(oldest.connection());
            }
            for (Ready next = this.ready.pollFirst(); next != null; next = this.ready.pollFirst()) {
                if (!stale(next)) {
                    return next.connection();
                }
                giveBack(next.connection());
            }
            return null;
        }

        private boolean stale(Ready entry) {
            return System.nanoTime() - entry.sinceNanos() > MAX_IDLE_NANOS;
        }

        /** Keeps {@code connection} ready for the next call (or gives it back once closed or suspect). */
        void keep(Connection connection) {
            Ready entry = new Ready(connection, System.nanoTime());
            this.ready.offerFirst(entry);
            // Closed or suspect meanwhile: whoever drained may have missed it, so take it out again.
            if ((DirectCalls.this.closed || this.suspect) && this.ready.removeFirstOccurrence(entry)) {
                giveBack(connection);
            }
        }

        /** Takes one more connection from the pool, on this master's threads, unless enough are held. */
        void refill() {
            if (this.held.get() >= this.capacity || !this.refilling.compareAndSet(false, true)) {
                return;
            }
            try {
                this.executor.execute(() -> {
                    try {
                        if (!DirectCalls.this.closed && !this.suspect && this.held.get() < this.capacity) {
                            Connection connection =
                                    java.util.Objects.requireNonNull(this.pool).getResource();
                            this.held.incrementAndGet();
                            keep(connection);
                        }
                    } catch (RuntimeException unreachable) {
                        // the next call finds none ready and tries again
                    } finally {
                        this.refilling.set(false);
                    }
                });
            } catch (RejectedExecutionException busyOrClosed) {
                this.refilling.set(false);
            }
        }

        void suspect() {
            this.suspect = true;
            drainReady();
        }

        void drainReady() {
            for (Connection connection = take(); connection != null; connection = take()) {
                giveBack(connection);
            }
        }

        /**
         * Back to the pool, which keeps it or, if broken, destroys it, on this master's threads: the
         * pool may talk to the server meanwhile (a test on return, a new connection for a waiting
         * borrower), which must not hold up the caller.
         */
        void giveBack(Connection connection) {
            this.held.decrementAndGet();
            if (DirectCalls.this.closed) {
                // Closing: the master's threads stop next, and a task queued for them would never run.
                closeQuietly(connection);
                return;
            }
            // Queued where close() finds it: shutting the threads down drops the task, not the connection.
            this.returning.add(connection);
            try {
                this.executor.execute(this::returnOne);
            } catch (RejectedExecutionException busyOrClosed) {
                returnOne();
            }
            if (DirectCalls.this.closed) {
                drainReturning(); // closed meanwhile: whoever drained may have missed it
            }
        }

        private void returnOne() {
            Connection connection = this.returning.poll();
            if (connection != null) {
                closeQuietly(connection);
            }
        }

        /** Gives back, on this thread, every connection whose give-back has not run yet. */
        void drainReturning() {
            for (Connection connection = this.returning.poll();
                    connection != null;
                    connection = this.returning.poll()) {
                closeQuietly(connection);
            }
        }

        void drop(Connection connection) {
            connection.setBroken();
            giveBack(connection);
        }

        private static void closeQuietly(Connection connection) {
            try {
                connection.close();
            } catch (RuntimeException ignored) {
                // the pool is closed: nothing to give back to
            }
        }
    }

    /** A connection ready for a call, and since when. */
    private record Ready(Connection connection, long sinceNanos) {}

    /** A script call written to a master's connection, its reply not read yet. */
    final class Sent {

        private final Master master;
        private final Connection connection;
        private CommandObject<Object> call;
        private final LuaScript script;
        private final List<String> keys;
        private final List<String> args;

        private Sent(
                Master master,
                Connection connection,
                CommandObject<Object> call,
                LuaScript script,
                List<String> keys,
                List<String> args) {
            this.master = master;
            this.connection = connection;
            this.call = call;
            this.script = script;
            this.keys = keys;
            this.args = args;
        }

        /**
         * Reads the reply, waiting until {@code deadlineNanos} at most (at least 1 ms, so a reply
         * already there is read). A server that does not know the script gets it in full on the
         * same connection, as {@link LuaScript#run} does.
         *
         * @throws JedisConnectionException when no reply came in time or the connection failed:
         *     the connection is dropped and the master is suspect (an error reply passes through and
         *     keeps the connection)
         */
        Object reply(long deadlineNanos) {
            int configured = this.connection.getSoTimeout();
            Object reply;
            try {
                try {
                    reply = read(deadlineNanos);
                } catch (JedisNoScriptException notCached) {
                    this.call = scriptCall(Protocol.Command.EVAL, this.script.source(), this.keys, this.args);
                    this.connection.sendCommand(this.call.getArguments());
                    reply = read(deadlineNanos);
                }
            } catch (JedisDataException errorReply) {
                // An error reply, read in full (a refused command, a script error): the connection is fine.
                restore(configured);
                throw errorReply;
            } catch (RuntimeException e) {
                // No reply in time, a failed connection, or anything else: what it still holds is unknown.
                this.master.drop(this.connection);
                if (e instanceof JedisConnectionException) {
                    this.master.suspect();
                }
                throw e;
            }
            restore(configured);
            return reply;
        }

        /** Drops the connection without reading its reply: the caller cannot wait for it. */
        void abandon() {
            this.master.drop(this.connection);
        }

        /** Gives the connection back to the master's ready ones with its own timeout, else drops it. */
        private void restore(int configuredTimeout) {
            if (this.connection.isBroken()) {
                this.master.drop(this.connection);
                return;
            }
            try {
                this.connection.setSoTimeout(configuredTimeout);
            } catch (RuntimeException e) {
                this.master.drop(this.connection);
                return;
            }
            this.master.keep(this.connection);
        }

        private Object read(long deadlineNanos) {
            long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime() + 999_999);
            this.connection.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, leftMillis)));
            return this.call.getBuilder().build(this.connection.getOne());
        }
    }
}
