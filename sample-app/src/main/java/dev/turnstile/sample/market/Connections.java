package dev.turnstile.sample.market;

import java.util.function.Function;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;

/**
 * Where a trade gets its Redis connection, each time it talks to Redis. A locked trade asks for one
 * only once it holds its locks, and gives it back before it pauses: a connection from a pool is
 * never held across a wait for a lock, so buyers waiting for one listing cannot take every
 * connection from the buyers that hold theirs (and from every other request). Thread-safe as the
 * pool or connection behind it: {@link #pool} is; {@link #of} is for one thread.
 */
public interface Connections {

    /**
     * Runs {@code work} on a connection and returns what it returned.
     *
     * @throws redis.clients.jedis.exceptions.JedisException when no connection can be had or Redis
     *     fails the commands
     */
    <T> T with(Function<Jedis, T> work);

    /** Borrows a connection from {@code pool} for each call, and gives it back when the call returns. */
    static Connections pool(JedisPool pool) {
        return new Connections() {
            @Override
            public <T> T with(Function<Jedis, T> work) {
                try (Jedis conn = pool.getResource()) {
                    return work.apply(conn);
                }
            }
        };
    }

    /** Always {@code conn}, a connection of the caller's own (the book's {@code conn}: one per worker process). */
    static Connections of(Jedis conn) {
        return new Connections() {
            @Override
            public <T> T with(Function<Jedis, T> work) {
                return work.apply(conn);
            }
        };
    }
}
