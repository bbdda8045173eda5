package dev.turnstile.sample.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.stereotype.Component;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;

/**
 * {@code --benchmark}: runs {@link Table63} ({@code --duration=10s} per row; 60s reproduces the
 * book) on the redis-server the command started, prints each row as it is measured (the counts of
 * that row, as measured) and then the table scaled to the book's 60 s beside the book's rows, and
 * writes it as Markdown, CSV and an SVG chart into {@code --out}. The command line was checked by
 * {@link dev.turnstile.sample.CommandLine} before anything started; it hands over {@code
 * sample.run.duration} and {@code sample.run.out} (by default a new directory per run under the
 * system's temporary directory: never into the source tree unless asked, e.g. {@code
 * --out=docs/marketplace}).
 *
 * @param redis the application's Redis, which the benchmark flushes
 * @param duration how long each row runs
 * @param out where the table is written
 */
@Component
@ConditionalOnProperty("benchmark")
public record MarketBenchmark(
        DataRedisConnectionDetails redis,
        @Value("${sample.run.duration:10s}") Duration duration,
        @Value("${sample.run.out}") Path out)
        implements ApplicationRunner {

    @Override
    public void run(ApplicationArguments args) throws Exception {
        DataRedisConnectionDetails.Standalone server = this.redis.getStandalone();
        System.out.printf(
                Locale.ROOT,
                "Table 6.3: 9 rows of %s each, %s. Each row prints the counts it measured in its %s;"
                        + " the table at the end scales them to the book's 60 s.%n",
                BenchmarkReport.seconds(this.duration.toMillis() / 1000.0),
                about(this.duration.multipliedBy(Table63.ROWS)),
                BenchmarkReport.seconds(this.duration.toMillis() / 1000.0));
        HostAndPort address = new HostAndPort(server.getHost(), server.getPort());
        JedisClientConfig config = DefaultJedisClientConfig.builder()
                .user(this.redis.getUsername())
                .password(this.redis.getPassword())
                .build();
        List<RunResult> results = new Table63(
                        () -> new Jedis(address, config), () -> Table63.workerClient(address, config))
                .run(this.duration, progress -> {
                    RunResult row = progress.row();
                    System.out.printf(
                            Locale.ROOT,
                            "[%d/%d] %s, %s: in %.1f s listed %,d, bought %,d, purchase retries %,d;"
                                    + " avg wait per purchase %.2f ms%n",
                            progress.done(),
                            progress.total(),
                            BenchmarkReport.workers(row.listers(), row.buyers()),
                            BenchmarkReport.label(row.strategy()),
                            row.seconds(),
                            row.listed(),
                            row.bought(),
                            row.retries(),
                            row.averageWaitMillis());
                });
        BenchmarkReport report = new BenchmarkReport(results);
        System.out.println(report.markdown());
        write(this.out, report);
    }

    /** "about 9 s", "about 1 min 30 s", "about 9 min". */
    static String about(Duration total) {
        long seconds = Math.round(total.toMillis() / 1000.0);
        if (seconds < 60) {
            return "about " + seconds + " s";
        }
        long minutes = seconds / 60;
        long rest = seconds % 60;
        return "about " + minutes + " min" + (rest == 0 ? "" : " " + rest + " s");
    }

    private void write(Path out, BenchmarkReport report) throws IOException {
        Files.createDirectories(out);
        // The first line names the command, as every generated page under docs/ does.
        Files.writeString(
                out.resolve("table-6.3.md"),
                "Written by `./mvnw -q -DskipTests install && java -jar sample-app/target/sample-app.jar --benchmark"
                        + " --duration=" + this.duration.toSeconds() + "s --out="
                        + dev.turnstile.sample.RunOutput.shown(out) + "` on "
                        + java.time.LocalDate.now()
                        + "; rerun it to refresh, never edit by hand.\n\n" + report.markdown());
        Files.writeString(out.resolve("table-6.3.csv"), report.csv());
        Files.writeString(out.resolve("table-6.3.svg"), report.svg());
        System.out.println("Wrote " + out.toAbsolutePath().resolve("table-6.3.md") + ", .csv and .svg");
    }
}
