package dev.turnstile.sample.benchmark;

import dev.turnstile.sample.market.Market;
import dev.turnstile.sample.market.Markets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import redis.clients.jedis.Jedis;

/**
 * The book's Table 6.3: the simulation for each of {1 lister/1 buyer, 5/1, 5/5} × {watch, lock,
 * fine}, one row after another. The data lives where {@code connections} point, and each row
 * starts by flushing that database: give it a database nothing else uses.
 */
public final class Table63 {

    /** The worker shapes, listers and buyers, in the book's order. */
    static final List<int[]> SHAPES = List.of(new int[] {1, 1}, new int[] {5, 1}, new int[] {5, 5});

    /** How many rows a run has. */
    public static final int ROWS = 9;

    private final Markets markets;
    private final Supplier<Jedis> connections;

    /**
     * @param markets the three strategies (their locks live on the application's Redis)
     * @param connections new connections to the database the simulation may flush
     */
    public Table63(Markets markets, Supplier<Jedis> connections) {
        this.markets = markets;
        this.connections = connections;
    }

    /**
     * Told after each row.
     *
     * @param done rows done, from 1
     * @param total rows in the run
     * @param row the row just measured
     */
    public record Progress(int done, int total, RunResult row) {}

    /** Runs all nine rows for {@code perRow} each, telling {@code progress} after each. */
    public List<RunResult> run(Duration perRow, Consumer<Progress> progress) throws InterruptedException {
        MarketSimulation simulation = new MarketSimulation(this.connections);
        List<RunResult> results = new ArrayList<>();
        for (int[] shape : SHAPES) {
            for (Market market : this.markets.all()) {
                RunResult result = simulation.run(market, shape[0], shape[1], perRow);
                results.add(result);
                progress.accept(new Progress(results.size(), ROWS, result));
            }
        }
        return results;
    }
}
