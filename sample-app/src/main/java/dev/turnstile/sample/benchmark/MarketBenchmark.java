package dev.turnstile.sample.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.stereotype.Component;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;

/**
 * {@code --benchmark}: runs {@link Table63} ({@code --duration=10s} per row; 60s reproduces the
 * book) on the redis-server the command started, prints each row as it is measured and the table
 * beside the book's, and writes it as Markdown, CSV and an SVG chart into {@code --out} (by default
 * {@code turnstile-marketplace} under the system's temporary directory: never into the source tree
 * unless asked, e.g. {@code --out=docs/marketplace}).
 */
@Component
@ConditionalOnProperty("benchmark")
public class MarketBenchmark implements ApplicationRunner {

    private final DataRedisConnectionDetails redis;

    /** Creates the benchmark on the application's Redis (which it flushes). */
    public MarketBenchmark(DataRedisConnectionDetails redis) {
        this.redis = redis;
    }

    /** Where results go when {@code --out} is not given. */
    public static Path defaultOut() {
        return Path.of(System.getProperty("java.io.tmpdir"), "turnstile-marketplace");
    }

    @Override
    public void run(ApplicationArguments args) throws Exception {
        Duration duration = DurationStyle.detectAndParse(option(args, "duration", "10s"));
        Path out = outDirectory(args);
        DataRedisConnectionDetails.Standalone server = this.redis.getStandalone();
        System.out.printf(
                Locale.ROOT,
                "Table 6.3: 9 rows of %d s each, about %d s%n",
                duration.toSeconds(),
                9 * duration.toSeconds());
        HostAndPort address = new HostAndPort(server.getHost(), server.getPort());
        JedisClientConfig config = DefaultJedisClientConfig.builder()
                .user(this.redis.getUsername())
                .password(this.redis.getPassword())
                .build();
        List<RunResult> results = new Table63(
                        () -> new Jedis(address, config), () -> Table63.workerClient(address, config))
                .run(duration, progress -> {
                    RunResult row = progress.row();
                    System.out.printf(
                            Locale.ROOT,
                            "[%d/%d] %s, %-5s: listed %,d, bought %,d, retries %,d, avg wait %.2f ms%n",
                            progress.done(),
                            progress.total(),
                            BenchmarkReport.workers(row.listers(), row.buyers()),
                            row.strategy(),
                            row.listed(),
                            row.bought(),
                            row.retries(),
                            row.averageWaitMillis());
                });
        BenchmarkReport report = new BenchmarkReport(results);
        System.out.println(report.markdown());
        write(out, report);
    }

    /**
     * The {@code --out=DIR} directory (or {@code --out DIR}), else {@link #defaultOut()}.
     *
     * @throws IllegalArgumentException if {@code --out} is given without a directory
     */
    public static Path outDirectory(ApplicationArguments args) {
        List<String> values = args.getOptionValues("out");
        if (values == null) {
            return defaultOut();
        }
        if (!values.isEmpty() && !values.get(0).isBlank()) {
            return Path.of(values.get(0));
        }
        if (args.getNonOptionArgs().size() == 1) {
            return Path.of(args.getNonOptionArgs().get(0));
        }
        throw new IllegalArgumentException("--out needs one directory: --out=DIR");
    }

    private static void write(Path out, BenchmarkReport report) throws IOException {
        Files.createDirectories(out);
        Files.writeString(out.resolve("table-6.3.md"), report.markdown());
        Files.writeString(out.resolve("table-6.3.csv"), report.csv());
        Files.writeString(out.resolve("table-6.3.svg"), report.svg());
        System.out.println("Wrote " + out.toAbsolutePath().resolve("table-6.3.md") + ", .csv and .svg");
    }

    private static String option(ApplicationArguments args, String name, String fallback) {
        List<String> values = args.getOptionValues(name);
        return values == null || values.isEmpty() ? fallback : values.get(0);
    }
}
