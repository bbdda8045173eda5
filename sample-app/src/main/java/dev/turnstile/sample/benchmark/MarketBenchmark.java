package dev.turnstile.sample.benchmark;

import dev.turnstile.sample.market.Market;
import dev.turnstile.sample.market.Markets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.stereotype.Component;
import redis.clients.jedis.Jedis;

/**
 * {@code --benchmark}: runs the book's simulation for each of {1 lister/1 buyer, 5/1, 5/5} ×
 * {watch, lock, fine} ({@code --duration=10s} each; 60s reproduces the book), prints the measured
 * table beside the book's, and writes it as Markdown, CSV and an SVG chart ({@code
 * --out=docs/marketplace}).
 */
@Component
@ConditionalOnProperty("benchmark")
public class MarketBenchmark implements ApplicationRunner {

    static final List<int[]> SHAPES = List.of(new int[] {1, 1}, new int[] {5, 1}, new int[] {5, 5});

    private final Markets markets;
    private final DataRedisConnectionDetails redis;

    /** Creates the benchmark over the application's markets and Redis (which it flushes). */
    public MarketBenchmark(Markets markets, DataRedisConnectionDetails redis) {
        this.markets = markets;
        this.redis = redis;
    }

    @Override
    public void run(ApplicationArguments args) throws Exception {
        Duration duration = DurationStyle.detectAndParse(option(args, "duration", "10s"));
        Path out = Path.of(option(args, "out", "docs/marketplace"));
        List<RunResult> results = runAll(duration);
        BenchmarkReport report = new BenchmarkReport(results);
        System.out.println(report.markdown());
        write(out, report);
    }

    /** Runs all nine rows for {@code duration} each. */
    public List<RunResult> runAll(Duration duration) throws InterruptedException {
        DataRedisConnectionDetails.Standalone server = this.redis.getStandalone();
        MarketSimulation simulation = new MarketSimulation(() -> new Jedis(server.getHost(), server.getPort()));
        List<RunResult> results = new ArrayList<>();
        for (int[] shape : SHAPES) {
            for (Market market : this.markets.all()) {
                RunResult result = simulation.run(market, shape[0], shape[1], duration);
                System.out.printf(
                        "%d listers, %d buyers, %-5s: listed %,d, bought %,d, retries %,d, avg wait %.2f ms%n",
                        shape[0],
                        shape[1],
                        market.name(),
                        result.listed(),
                        result.bought(),
                        result.retries(),
                        result.averageWaitMillis());
                results.add(result);
            }
        }
        return results;
    }

    private static void write(Path out, BenchmarkReport report) throws IOException {
        Files.createDirectories(out);
        Files.writeString(out.resolve("table-6.3.md"), report.markdown());
        Files.writeString(out.resolve("table-6.3.csv"), report.csv());
        Files.writeString(out.resolve("table-6.3.svg"), report.svg());
        System.out.println("Wrote " + out.resolve("table-6.3.md") + ", .csv and .svg");
    }

    private static String option(ApplicationArguments args, String name, String fallback) {
        List<String> values = args.getOptionValues(name);
        return values == null || values.isEmpty() ? fallback : values.get(0);
    }
}
