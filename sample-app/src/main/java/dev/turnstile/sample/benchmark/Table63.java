package dev.turnstile.sample.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;

/**
 * The book's Table 6.3: the simulation for each of {1 lister/1 buyer, 5/1, 5/5} × {watch, lock,
 * fine}, one row after another. Each worker is a process of the book's: a connection of its own,
 * and a Turnstile of its own for the locked strategies. The data lives where {@code connections}
 * point, and each row starts by flushing that database: give it one nothing else uses.
 */
public final class Table63 {

    /** The strategies, in the book's order. */
    static final List<String> STRATEGIES = List.of("watch", "lock", "fine");

    /** The worker shapes, listers and buyers, in the book's order. */
    static final List<int[]> SHAPES = List.of(new int[] {1, 1}, new int[] {5, 1}, new int[] {5, 5});

    /** How many rows a run has. */
    public static final int ROWS = 9;

    private final Supplier<Jedis> connections;
    private final Supplier<UnifiedJedis> lockClients;

    /**
     * @param connections new connections to the database the simulation may flush
     * @param lockClients new clients for a worker's own Turnstile (a small pool each)
     */
    public Table63(Supplier<Jedis> connections, Supplier<UnifiedJedis> lockClients) {
        this.connections = connections;
        this.lockClients = lockClients;
    }

    /**
     * Told after each row.
     *
     * @param done rows done, from 1
     * @param total rows in the run
     * @param row the row just measured
     */
    public record Progress(int done, int total, RunResult row) {}

    /** A client for one worker's Turnstile: a pool of up to 4 connections to {@code address}. */
    public static UnifiedJedis workerClient(HostAndPort address, JedisClientConfig config) {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(4);
        return new JedisPooled(pool, address, config);
    }

    /** Runs all nine rows for {@code perRow} each, telling {@code progress} after each. */
    public List<RunResult> run(Duration perRow, Consumer<Progress> progress) throws InterruptedException {
        MarketSimulation simulation = new MarketSimulation(this.connections, this.lockClients);
        List<RunResult> results = new ArrayList<>();
        for (int[] shape : SHAPES) {
            for (String strategy : STRATEGIES) {
                RunResult result = simulation.run(strategy, shape[0], shape[1], perRow);
                results.add(result);
                progress.accept(new Progress(results.size(), ROWS, result));
            }
        }
        return results;
    }
}
