package dev.turnstile.benchmarks;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.semaphore.RedisSemaphore;
import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.RedisServer;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Semaphores side by side on one {@code redis-server} started for the run: 16 threads of one
 * process on a semaphore of 5 permits, each acquiring with a 60 s wait and a fixed 30 s lease and
 * releasing at once; Turnstile's semaphore (unfair and fair), Redisson's {@code
 * RPermitExpirableSemaphore} (leased like Turnstile's), and two in-process anchors (a fair {@code
 * java.util.concurrent.Semaphore} of 5 and a fair {@code ReentrantLock}'s hand-off). The trials run
 * in turns and each row is its median trial. Then the same 16 threads split over 2 and 4 JVM
 * processes: each process's share of the permits. Writes {@code docs/benchmarks/semaphores.md}, and
 * the same tables into {@code docs/benchmarks.md} between its semaphore-table markers.
 *
 * <p>Arguments: {@code --trial=2s --warmup=1s --trials=3 --out=docs/benchmarks}, and {@code
 * --only=one} (the one-process table) or {@code --only=processes} (the multi-process one).
 */
public final class SemaphoreBenchmark {

    static final String NAME = "api";

    static final int PERMITS = 5;
    static final int THREADS = 16;
    static final Duration WAIT = Duration.ofSeconds(60);
    static final Duration LEASE = Duration.ofSeconds(Contenders.LEASE_SECONDS);

    private SemaphoreBenchmark() {}

    public static void main(String[] args) throws Exception {
        RunOptions options = RunOptions.start(args);
        Path out = options.out();
        String only = options.only();
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        try (RedisServer server = RedisServer.start()) {
            CountingRedis counting = new CountingRedis(server.hostAndPort(), 64);
            Turnstile turnstile = Turnstile.builder(counting.client()).build();
            RedissonClient redisson = redisson(server.port());
            List<Scenario> group = scenarios(turnstile, redisson);
            Harness harness = new Harness(server, counting, options.warmUp(), options.trial(), options.trials());
            List<Measurement> rows = only.equals("processes")
                    ? List.of()
                    : harness.measureSideBySide(
                            group, scenario -> scenario.contender().startsWith("Turnstile"));
            for (Measurement row : rows) {
                System.out.printf(
                        Locale.ROOT,
                        "%-52s %10.0f acq/s %7.2f cmd/acq%n",
                        row.scenario().contender(),
                        row.acquisitionsPerSecond(),
                        row.commandsPerAcquisition());
            }
            List<ProcessShares> shares = new ArrayList<>();
            for (boolean fair : only.equals("one") ? new boolean[0] : new boolean[] {false, true}) {
                for (int processes : new int[] {2, 4}) {
                    ProcessShares measured = ProcessShares.median(
                            server,
                            processes,
                            fair,
                            options.warmUp(),
                            options.trial().multipliedBy(2),
                            options.trials());
                    System.out.println(measured.markdownRow());
                    shares.add(measured);
                }
            }
            String markdown = markdown(rows, shares, options, load, LocalDate.now());
            System.out.println();
            System.out.println(markdown);
            Files.createDirectories(out);
            Files.writeString(out.resolve("semaphores.md"), markdown);
            System.out.println("Wrote " + out.resolve("semaphores.md"));
            Path summary = out.toAbsolutePath().getParent().resolve("benchmarks.md");
            if (Files.exists(summary)) {
                String text = Files.readString(summary);
                String updated = replaceBetweenMarkers(
                        text, markdown.substring(markdown.indexOf('\n') + 1).strip());
                if (!updated.equals(text)) {
                    Files.writeString(summary, updated);
                    System.out.println("Updated the semaphore table in " + summary);
                }
            }
            turnstile.close();
            redisson.shutdown();
            counting.client().close();
        }
    }

    private static List<Scenario> scenarios(Turnstile turnstile, RedissonClient redisson) {
        String group = THREADS + " threads, semaphore of " + PERMITS;
        RPermitExpirableSemaphore permits = redisson.getPermitExpirableSemaphore("r-" + NAME);
        permits.trySetPermits(PERMITS);
        Semaphore local = new Semaphore(PERMITS, true);
        ReentrantLock fairLock = new ReentrantLock(true);
        RedisSemaphore unfair = turnstile.semaphore(NAME, PERMITS);
        RedisSemaphore fair = turnstile.semaphore(NAME + "-fair", PERMITS).fair();
        return List.of(
                new Scenario(
                        group, "Turnstile RedisSemaphore", THREADS, false, t -> Contenders.turnstile(unfair, WAIT)),
                new Scenario(
                        group, "Turnstile RedisSemaphore, fair", THREADS, false, t -> Contenders.turnstile(fair, WAIT)),
                new Scenario(
                        group,
                        "Redisson RPermitExpirableSemaphore",
                        THREADS,
                        false,
                        t -> Contenders.redisson(permits, WAIT)),
                new Scenario(
                        group,
                        "anchor: java.util.concurrent.Semaphore(5, fair), one process",
                        THREADS,
                        false,
                        t -> Contenders.inProcess(
                                () -> local.tryAcquire(WAIT.toSeconds(), TimeUnit.SECONDS), local::release)),
                new Scenario(
                        group,
                        "anchor: fair ReentrantLock hand-off, one process",
                        THREADS,
                        true,
                        t -> Contenders.inProcess(
                                () -> fairLock.tryLock(WAIT.toSeconds(), TimeUnit.SECONDS), fairLock::unlock)));
    }

    private static RedissonClient redisson(int port) {
        Config config = new Config();
        config.useSingleServer()
                .setAddress("redis://127.0.0.1:" + port)
                .setConnectionPoolSize(64)
                .setConnectionMinimumIdleSize(8);
        return Redisson.create(config);
    }

    static String markdown(
            List<Measurement> rows, List<ProcessShares> shares, RunOptions options, double load, LocalDate date) {
        StringBuilder text = new StringBuilder();
        text.append(Provenance.header(Provenance.command(SemaphoreBenchmark.class)));
        text.append("# Semaphores, measured\n\n");
        text.append(String.format(
                Locale.ROOT,
                "Measured on %s: %d cores, Java %s, one `redis-server` started for the run, load average %.2f"
                        + " when it began. %d threads, a semaphore of %d permits; each acquires with a %d s wait"
                        + " and a fixed %d s lease and releases at once. Warm-up %d s, then %d trials of %d s in"
                        + " turns; each row is its median trial. Commands are what Redis executed (`INFO"
                        + " commandstats`, which counts the commands inside Lua scripts too), per acquisition.%n%n",
                date,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                load,
                THREADS,
                PERMITS,
                WAIT.toSeconds(),
                LEASE.toSeconds(),
                options.warmUp().toSeconds(),
                options.trials(),
                options.trial().toSeconds()));
        double turnstile = rows.isEmpty() ? Double.NaN : rate(rows, "Turnstile RedisSemaphore");
        text.append("| contender | acquisitions/s | × Turnstile | Redis commands/acq | round trips/acq | acquire p50 µs"
                + " | acquire p99 µs | server CPU µs/acq |\n");
        text.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Measurement row : rows) {
            boolean anchor = row.scenario().contender().startsWith("anchor");
            text.append(Report.rateCells(row.scenario().contender(), row.acquisitionsPerSecond(), turnstile))
                    .append(String.format(
                            Locale.ROOT,
                            " %s | %s | %.0f | %.0f | %s |%n",
                            anchor ? "–" : String.format(Locale.ROOT, "%.2f", row.commandsPerAcquisition()),
                            Report.orDash("%.2f", row.roundTripsPerAcquisition()),
                            row.acquireP50Micros(),
                            row.acquireP99Micros(),
                            anchor ? "–" : String.format(Locale.ROOT, "%.1f", row.serverCpuMicrosPerAcquisition())));
        }
        double fair = rows.isEmpty() ? Double.NaN : rate(rows, "Turnstile RedisSemaphore, fair");
        double redisson = rows.isEmpty() ? Double.NaN : rate(rows, "Redisson RPermitExpirableSemaphore");
        text.append(String.format(
                Locale.ROOT,
                "%nFair against unfair: %.2f×. Turnstile against Redisson: %.2f× (fair: %.2f×).%n",
                fair / turnstile,
                turnstile / redisson,
                fair / redisson));
        text.append("\n### The same 16 threads over several JVM processes\n\n");
        text.append("Each process is its own JVM with its own Turnstile and the same share of the threads; each"
                + " trial counts after the warm-up, and the row is the median trial by throughput. \"Shares\" is each process's fraction of"
                + " the acquisitions; \"furthest from even\" is the largest difference from an even share,"
                + " relative to it.\n\n");
        text.append(
                "| semaphore | processes × threads | acquisitions/s | Redis commands/acq | shares | furthest from even |\n");
        text.append("|---|---|---:|---:|---|---:|\n");
        shares.forEach(row -> text.append(row.markdownRow()).append('\n'));
        return text.toString();
    }

    static final String BEGIN = "<!-- semaphore table: written by SemaphoreBenchmark -->";
    static final String END = "<!-- end of the semaphore table -->";

    /** Replaces what stands between {@link #BEGIN} and {@link #END} in {@code text}, if both are there. */
    static String replaceBetweenMarkers(String text, String table) {
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        if (begin < 0 || end < begin) {
            return text;
        }
        return text.substring(0, begin + BEGIN.length()) + "\n\n" + table + "\n\n" + text.substring(end);
    }

    private static double rate(List<Measurement> rows, String contender) {
        return rows.stream()
                .filter(row -> row.scenario().contender().equals(contender))
                .findFirst()
                .orElseThrow()
                .acquisitionsPerSecond();
    }

    /**
     * One measurement of {@code processes} JVMs on one semaphore.
     *
     * @param shares each process's fraction of the acquisitions
     */
    record ProcessShares(
            boolean fair, int processes, double acquisitionsPerSecond, double commandsPerAcquisition, double[] shares) {

        /** The median of {@code trials} runs, by throughput. */
        static ProcessShares median(
                RedisServer server, int processes, boolean fair, Duration warmUp, Duration duration, int trials)
                throws Exception {
            List<ProcessShares> runs = new ArrayList<>();
            for (int i = 0; i < trials; i++) {
                runs.add(measure(server, processes, fair, warmUp, duration));
            }
            runs.sort((a, b) -> Double.compare(a.acquisitionsPerSecond, b.acquisitionsPerSecond));
            return runs.get(runs.size() / 2);
        }

        static ProcessShares measure(
                RedisServer server, int processes, boolean fair, Duration warmUp, Duration duration) throws Exception {
            int threads = THREADS / processes;
            List<ChildJvm> children = new ArrayList<>();
            try {
                for (int i = 0; i < processes; i++) {
                    children.add(ChildJvm.start(
                            SemaphoreProcessMain.class,
                            Integer.toString(server.port()),
                            NAME + "-" + processes + (fair ? "-fair" : ""),
                            Integer.toString(PERMITS),
                            Integer.toString(threads),
                            Boolean.toString(fair)));
                }
                for (ChildJvm child : children) {
                    child.awaitLineStartingWith("READY", Duration.ofSeconds(60));
                }
                children.forEach(child -> child.send("go"));
                Thread.sleep(warmUp.toMillis());
                server.resetStats();
                long start = System.nanoTime();
                children.forEach(child -> child.send("mark"));
                Thread.sleep(duration.toMillis());
                children.forEach(child -> child.send("stop"));
                long[] counts = new long[processes];
                for (int i = 0; i < processes; i++) {
                    counts[i] = Long.parseLong(children.get(i)
                            .awaitLineStartingWith("COUNT", Duration.ofSeconds(90))
                            .split(" ")[1]);
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                long executed = Harness.commands(server.commandCounts());
                long total = java.util.Arrays.stream(counts).sum();
                double[] shares = new double[processes];
                for (int i = 0; i < processes; i++) {
                    shares[i] = total == 0 ? Double.NaN : (double) counts[i] / total;
                }
                return new ProcessShares(
                        fair, processes, total / seconds, total == 0 ? Double.NaN : (double) executed / total, shares);
            } finally {
                children.forEach(ChildJvm::close);
            }
        }

        /** The largest difference of a share from an even one, relative to it (0.25: 25%). */
        double furthestFromEven() {
            double even = 1.0 / this.processes;
            double furthest = 0;
            for (double share : this.shares) {
                furthest = Math.max(furthest, Math.abs(share - even) / even);
            }
            return furthest;
        }

        String markdownRow() {
            StringBuilder split = new StringBuilder();
            for (double share : this.shares) {
                split.append(split.isEmpty() ? "" : " / ").append(String.format(Locale.ROOT, "%.0f%%", share * 100));
            }
            return String.format(
                    Locale.ROOT,
                    "| Turnstile RedisSemaphore%s | %d × %d | %,.0f | %.2f | %s | %.0f%% |",
                    this.fair ? ", fair" : "",
                    this.processes,
                    THREADS / this.processes,
                    this.acquisitionsPerSecond,
                    this.commandsPerAcquisition,
                    split,
                    furthestFromEven() * 100);
        }
    }
}
