package dev.turnstile.benchmarks;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.RedisServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import redis.clients.jedis.UnifiedJedis;

/**
 * Runs every scenario against Turnstile, a raw {@code SET NX PX} baseline, Redisson and Spring
 * Integration's {@code RedisLockRegistry}, side by side on one {@code redis-server} started for
 * the run; prints Markdown tables and writes them, a CSV and an SVG chart under {@code
 * docs/benchmarks/}.
 *
 * <p>Arguments: {@code --trial=2s --warmup=1s --trials=3 --out=docs/benchmarks}, and {@code
 * --only=text,text} to run only the groups whose title contains one of the texts ("processes" for
 * the two-process rows, "idle" for the keys left per idle name).
 */
public final class BenchmarkMain {

    private static final String FAIR_REENTRANT_LOCK = "fair ReentrantLock, in-process anchor (no Redis)";
    private static final String TURNSTILE = "Turnstile RedisLock";
    private static final String RAW_FENCED = "raw fenced SET NX PX + INCR, checked release";

    /**
     * The ratios the run states in its own output, each between two rows of one group: Turnstile's
     * hot key against a fair {@code ReentrantLock}'s hand-off between as many threads, and
     * independent keys against the raw fenced floor.
     */
    private static final List<Report.Ratio> RATIOS = List.of(
            new Report.Ratio("8 threads, one key", TURNSTILE, FAIR_REENTRANT_LOCK, 0.8),
            new Report.Ratio("32 threads, one key", TURNSTILE, FAIR_REENTRANT_LOCK, Double.NaN),
            new Report.Ratio("1 thread, uncontended", TURNSTILE, RAW_FENCED, 0.9),
            new Report.Ratio("8 threads, 8 keys", TURNSTILE, RAW_FENCED, 0.9));

    private BenchmarkMain() {}

    public static void main(String[] args) throws Exception {
        RunOptions options = RunOptions.start(args);
        Path out = options.out();
        String only = options.only();
        try (RedisServer server = RedisServer.start()) {
            Peers peers = new Peers(server);
            Harness harness = new Harness(server, peers.counting, options.warmUp(), options.trial(), options.trials());
            List<Measurement> results = new ArrayList<>();
            Map<String, List<Scenario>> groups = new LinkedHashMap<>();
            for (Scenario scenario : peers.scenarios()) {
                if (selected(only, scenario.group())) {
                    groups.computeIfAbsent(scenario.group(), group -> new ArrayList<>())
                            .add(scenario);
                }
            }
            for (List<Scenario> group : groups.values()) {
                for (Measurement measurement : harness.measureSideBySide(group, peers::counted)) {
                    System.out.printf(
                            Locale.ROOT,
                            "%-40s %-46s %10.0f acq/s %7.2f cmd/acq p50 %6.0f us%n",
                            measurement.scenario().group(),
                            measurement.scenario().contender(),
                            measurement.acquisitionsPerSecond(),
                            measurement.commandsPerAcquisition(),
                            measurement.acquireP50Micros());
                    results.add(measurement);
                }
            }
            List<Report.ProcessRow> processes = new ArrayList<>();
            String[][] libraries = {
                {"turnstile", "Turnstile RedisLock"},
                {"redisson", "Redisson RLock"},
                {"spring-integration-spin", "Spring Integration RedisLockRegistry, SPIN"},
                {"spring-integration", "Spring Integration RedisLockRegistry, PUB_SUB"}
            };
            for (String[] library :
                    "2 JVM processes".contains(only) || only.contains("process") ? libraries : new String[0][]) {
                // The median of the trials, by throughput.
                List<double[]> runs = new ArrayList<>();
                for (int i = 0; i < options.trials(); i++) {
                    runs.add(TwoProcessRun.measure(
                            server, library[0], "two-jvms", 4, options.trial().multipliedBy(2)));
                }
                runs.sort((a, b) -> Double.compare(a[0], b[0]));
                double[] measured = runs.get(runs.size() / 2);
                System.out.printf(
                        Locale.ROOT,
                        "2 JVM processes x 4 threads, one key   %-46s %10.0f acq/s %7.2f cmd/acq %3.0f%% here p99 %6.0f us%n",
                        library[1],
                        measured[0],
                        measured[1],
                        measured[2] * 100,
                        measured[3]);
                processes.add(new Report.ProcessRow(library[1], measured[0], measured[1], measured[2], measured[3]));
            }
            List<IdleNames.Row> idle = new ArrayList<>();
            if (selected(only, "keys left per idle name")) {
                idle = IdleNames.measure(server, 100_000, peers.idleNameLibraries());
                idle.forEach(row -> System.out.print("keys left per idle name   " + row.markdown()));
            }
            Map<Integer, Double> redisBenchmark = redisBenchmark(server.port());
            String redisVersion = server.client()
                    .info("server")
                    .lines()
                    .filter(line -> line.startsWith("redis_version:"))
                    .findFirst()
                    .orElse("redis_version:?");
            Report report = Report.of(
                    results,
                    RATIOS,
                    processes,
                    idle,
                    redisBenchmark,
                    options.trial(),
                    options.warmUp(),
                    options.trials(),
                    redisVersion,
                    LocalDate.now());
            System.out.println();
            System.out.println(report.markdown());
            Files.createDirectories(out);
            Provenance.write(
                    out.resolve("results.md"), Provenance.command(BenchmarkMain.class, args), report.markdown());
            Files.writeString(out.resolve("results.csv"), report.csv());
            Files.writeString(out.resolve("results.svg"), report.svg());
            System.out.println("Wrote " + out.resolve("results.md") + ", results.csv and results.svg");
            peers.close();
        }
    }

    /** The contenders' clients, all on one server. */
    private static final class Peers {

        private final CountingRedis counting;
        private final UnifiedJedis redis;
        private final Turnstile first;
        private final Turnstile second;
        private final RedissonClient redisson;
        private final JedisConnectionFactory springData;
        private final RedisLockRegistry spin;
        private final RedisLockRegistry pubSub;
        private final ConfigurableApplicationContext spring;
        private final AnnotatedService annotated;
        private final Turnstile springTurnstile;

        Peers(RedisServer server) {
            this.counting = new CountingRedis(server.hostAndPort(), 64);
            this.redis = this.counting.client();
            this.first = Turnstile.builder(this.redis).build();
            this.second = Turnstile.builder(this.redis).build();
            this.redisson = redisson(server);
            this.springData = springData(server);
            this.spin = registry("si-spin", RedisLockRegistry.RedisLockType.SPIN_LOCK);
            this.pubSub = registry("si-pubsub", RedisLockRegistry.RedisLockType.PUB_SUB_LOCK);
            this.spring = AnnotatedService.start(server.port(), this.redis);
            this.annotated = this.spring.getBean(AnnotatedService.class);
            this.springTurnstile = this.spring.getBean(Turnstile.class);
        }

        /** Whether the scenario's commands pass through the counting client. */
        boolean counted(Scenario scenario) {
            return scenario.contender().startsWith("raw")
                    || scenario.contender().startsWith("Turnstile")
                    || scenario.group().startsWith("aspect");
        }

        List<Scenario> scenarios() {
            List<Scenario> all = new ArrayList<>();
            String solo = "1 thread, uncontended";
            all.add(new Scenario(
                    solo, "raw SET NX PX + DEL", 1, false, t -> Contenders.raw(this.redis, "raw:solo", false)));
            all.add(new Scenario(
                    solo,
                    "raw SET NX PX + owner-checked Lua release",
                    1,
                    false,
                    t -> Contenders.raw(this.redis, "raw:solo-checked", true)));
            all.add(new Scenario(solo, RAW_FENCED, 1, false, t -> Contenders.rawFenced(this.redis, "raw:solo-fenced")));
            all.add(new Scenario(
                    solo,
                    TURNSTILE,
                    1,
                    false,
                    t -> Contenders.turnstile(this.first, "solo", Duration.ofSeconds(Contenders.LEASE_SECONDS))));
            all.add(new Scenario(
                    solo,
                    "Turnstile RedisLock, watchdog lease",
                    1,
                    false,
                    t -> Contenders.turnstile(this.first, "solo-watchdog", null)));
            all.add(new Scenario(solo, "Redisson RLock", 1, false, t -> Contenders.redisson(this.redisson, "r-solo")));
            all.add(new Scenario(
                    solo, "Redisson RFencedLock", 1, false, t -> Contenders.redissonFenced(this.redisson, "rf-solo")));
            all.add(new Scenario(
                    solo,
                    "Spring Integration RedisLockRegistry, SPIN",
                    1,
                    false,
                    t -> Contenders.springIntegration(this.spin, "solo")));
            all.add(new Scenario(
                    solo,
                    "Spring Integration RedisLockRegistry, PUB_SUB",
                    1,
                    false,
                    t -> Contenders.springIntegration(this.pubSub, "solo")));

            String eightKeys = "8 threads, 8 keys";
            all.add(new Scenario(
                    eightKeys,
                    "raw SET NX PX + owner-checked Lua release",
                    8,
                    false,
                    t -> Contenders.raw(this.redis, "raw:k" + t, true)));
            all.add(new Scenario(
                    eightKeys, RAW_FENCED, 8, false, t -> Contenders.rawFenced(this.redis, "raw:fenced-k" + t)));
            all.add(new Scenario(
                    eightKeys,
                    TURNSTILE,
                    8,
                    false,
                    t -> Contenders.turnstile(this.first, "k" + t, Duration.ofSeconds(Contenders.LEASE_SECONDS))));
            all.add(new Scenario(
                    eightKeys, "Redisson RLock", 8, false, t -> Contenders.redisson(this.redisson, "r-k" + t)));
            all.add(new Scenario(
                    eightKeys,
                    "Spring Integration RedisLockRegistry, PUB_SUB",
                    8,
                    false,
                    t -> Contenders.springIntegration(this.pubSub, "k" + t)));

            for (int threads : new int[] {8, 32}) {
                String hot = threads + " threads, one key";
                String key = "hot" + threads;
                all.add(new Scenario(
                        hot,
                        "raw SET NX PX spin + owner-checked release",
                        threads,
                        true,
                        t -> Contenders.raw(this.redis, "raw:" + key, true)));
                all.add(new Scenario(
                        hot,
                        TURNSTILE,
                        threads,
                        true,
                        t -> Contenders.turnstile(this.first, key, Duration.ofSeconds(Contenders.LEASE_SECONDS))));
                ReentrantLock anchor = new ReentrantLock(true);
                all.add(new Scenario(
                        hot, FAIR_REENTRANT_LOCK, threads, true, t -> Contenders.fairReentrantLock(anchor)));
                all.add(new Scenario(
                        hot, "Redisson RLock", threads, true, t -> Contenders.redisson(this.redisson, "r-" + key)));
                if (threads == 8) {
                    all.add(new Scenario(
                            hot,
                            "Redisson RFencedLock",
                            threads,
                            true,
                            t -> Contenders.redissonFenced(this.redisson, "rf-" + key)));
                }
                all.add(new Scenario(
                        hot,
                        "Spring Integration RedisLockRegistry, SPIN",
                        threads,
                        true,
                        t -> Contenders.springIntegration(this.spin, key)));
                all.add(new Scenario(
                        hot,
                        "Spring Integration RedisLockRegistry, PUB_SUB",
                        threads,
                        true,
                        t -> Contenders.springIntegration(this.pubSub, key)));
            }

            String semaphore = "16 threads, semaphore of 5";
            all.add(new Scenario(
                    semaphore,
                    "Turnstile RedisSemaphore",
                    16,
                    false,
                    t -> Contenders.turnstile(
                            (t % 2 == 0 ? this.first : this.second).semaphore("api", 5), Contenders.WAIT)));
            all.add(new Scenario(
                    semaphore,
                    "Turnstile RedisSemaphore, fair",
                    16,
                    false,
                    t -> Contenders.turnstile(
                            (t % 2 == 0 ? this.first : this.second)
                                    .semaphore("api-fair", 5)
                                    .fair(),
                            Contenders.WAIT)));
            RPermitExpirableSemaphore permits = this.redisson.getPermitExpirableSemaphore("r-api");
            permits.trySetPermits(5);
            all.add(new Scenario(
                    semaphore,
                    "Redisson RPermitExpirableSemaphore",
                    16,
                    false,
                    t -> Contenders.redisson(permits, Contenders.WAIT)));
            all.add(new Scenario(
                    semaphore,
                    "Turnstile RedisLock on one key, for comparison",
                    16,
                    true,
                    t -> Contenders.turnstile(
                            t % 2 == 0 ? this.first : this.second,
                            "sem-compare",
                            Duration.ofSeconds(Contenders.LEASE_SECONDS))));

            String overhead = "aspect overhead, 1 thread";
            all.add(new Scenario(
                    overhead,
                    "RedisLock called directly",
                    1,
                    false,
                    t -> Contenders.turnstile(
                            this.springTurnstile, "solo-direct:1", Duration.ofSeconds(Contenders.LEASE_SECONDS))));
            all.add(new Scenario(
                    overhead,
                    "@DistributedLock method, SpEL key",
                    1,
                    false,
                    t -> Contenders.annotated(this.annotated)));
            return all;
        }

        /** The libraries of the idle-names row, each on its own key pattern. */
        List<IdleNames.Library> idleNameLibraries() {
            Duration lease = IdleNames.lease();
            RedisLockRegistry idleRegistry = registry("si-idle", RedisLockRegistry.RedisLockType.PUB_SUB_LOCK);
            return List.of(
                    new IdleNames.Library(
                            "Turnstile RedisLock (1 s lease)",
                            "turnstile:*{idle:*",
                            i -> Contenders.turnstile(this.first, "idle:" + i, lease)),
                    new IdleNames.Library(
                            "Redisson RLock", "r-idle:*", i -> Contenders.redisson(this.redisson, "r-idle:" + i)),
                    new IdleNames.Library(
                            "Redisson RFencedLock",
                            "*rf-idle:*",
                            i -> Contenders.redissonFenced(this.redisson, "rf-idle:" + i)),
                    new IdleNames.Library(
                            "Spring Integration RedisLockRegistry, PUB_SUB",
                            "si-idle:*",
                            i -> Contenders.springIntegration(idleRegistry, "idle:" + i)));
        }

        private RedisLockRegistry registry(String prefix, RedisLockRegistry.RedisLockType type) {
            RedisLockRegistry registry = new RedisLockRegistry(this.springData, prefix, Duration.ofSeconds(60));
            registry.setRedisLockType(type);
            return registry;
        }

        private static RedissonClient redisson(RedisServer server) {
            Config config = new Config();
            config.useSingleServer()
                    .setAddress("redis://127.0.0.1:" + server.port())
                    .setConnectionPoolSize(64)
                    .setConnectionMinimumIdleSize(8);
            return Redisson.create(config);
        }

        private static JedisConnectionFactory springData(RedisServer server) {
            org.apache.commons.pool2.impl.GenericObjectPoolConfig<redis.clients.jedis.Jedis> pool =
                    new org.apache.commons.pool2.impl.GenericObjectPoolConfig<>();
            pool.setMaxTotal(64);
            JedisConnectionFactory factory = new JedisConnectionFactory(
                    new RedisStandaloneConfiguration("127.0.0.1", server.port()),
                    JedisClientConfiguration.builder()
                            .usePooling()
                            .poolConfig(pool)
                            .build());
            factory.afterPropertiesSet();
            factory.start();
            return factory;
        }

        void close() {
            this.spin.destroy();
            this.pubSub.destroy();
            this.springData.destroy();
            this.redisson.shutdown();
            this.spring.close();
            this.first.close();
            this.second.close();
            this.redis.close();
        }
    }

    /** {@code redis-server}'s own SET rate at 1, 8 and 32 clients, for reference (empty if not installed). */
    private static Map<Integer, Double> redisBenchmark(int port) {
        Map<Integer, Double> rates = new LinkedHashMap<>();
        for (int clients : new int[] {1, 8, 32}) {
            try {
                Process process = new ProcessBuilder(
                                "redis-benchmark",
                                "-p",
                                Integer.toString(port),
                                "-t",
                                "set",
                                "-c",
                                Integer.toString(clients),
                                "-n",
                                "50000",
                                "-q")
                        .redirectErrorStream(true)
                        .start();
                try (BufferedReader reader =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    String output = String.join("\n", reader.lines().toList());
                    java.util.regex.Matcher rate = java.util.regex.Pattern.compile("SET: ([0-9.]+) requests per second")
                            .matcher(output);
                    if (rate.find()) {
                        rates.put(clients, Double.parseDouble(rate.group(1)));
                    }
                }
                process.waitFor();
            } catch (IOException e) {
                return rates;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return rates;
            }
        }
        return rates;
    }

    /** Whether group {@code title} is run: {@code only} is empty, or one of its comma-separated texts is in the title. */
    private static boolean selected(String only, String title) {
        return only.isEmpty() || java.util.Arrays.stream(only.split(",")).anyMatch(title::contains);
    }
}
