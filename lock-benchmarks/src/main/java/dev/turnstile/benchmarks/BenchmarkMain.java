package dev.turnstile.benchmarks;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.semaphore.RedisSemaphore;
import dev.turnstile.test.redis.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.springframework.context.ConfigurableApplicationContext;
import redis.clients.jedis.UnifiedJedis;

/**
 * Runs every scenario on one {@code redis-server} started for the run and prints a Markdown
 * table; writes it, and a CSV, under {@code docs/benchmarks/}.
 *
 * <p>Arguments: {@code --trial=3s --warmup=2s --trials=3 --out=docs/benchmarks}.
 */
public final class BenchmarkMain {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration LEASE = Duration.ofSeconds(30);

    private BenchmarkMain() {}

    public static void main(String[] args) throws Exception {
        Duration trial = Duration.ofSeconds(3);
        Duration warmUp = Duration.ofSeconds(2);
        int trials = 3;
        Path out = Path.of("docs", "benchmarks");
        for (String arg : args) {
            String value = arg.substring(arg.indexOf('=') + 1);
            if (arg.startsWith("--trial=")) {
                trial = Duration.ofMillis(parseMillis(value));
            } else if (arg.startsWith("--warmup=")) {
                warmUp = Duration.ofMillis(parseMillis(value));
            } else if (arg.startsWith("--trials=")) {
                trials = Integer.parseInt(value);
            } else if (arg.startsWith("--out=")) {
                out = Path.of(value);
            }
        }
        try (RedisServer server = RedisServer.start()) {
            CountingRedis counting = new CountingRedis(server.hostAndPort(), 64);
            UnifiedJedis redis = counting.client();
            Turnstile first = Turnstile.builder(redis).build();
            Turnstile second = Turnstile.builder(redis).build();
            Harness harness = new Harness(server, counting, warmUp, trial, trials);
            List<Measurement> results = new ArrayList<>();
            List<Scenario> scenarios = new ArrayList<>(scenarios(redis, first, second));
            ConfigurableApplicationContext spring = AnnotatedService.start(server.port(), redis);
            AnnotatedService annotated = spring.getBean(AnnotatedService.class);
            Turnstile springTurnstile = spring.getBean(Turnstile.class);
            String overhead = "aspect overhead, 1 thread";
            scenarios.add(new Scenario(overhead, "RedisLock called directly", 1, t -> () -> {
                try (Lease lease = springTurnstile.lock("solo-direct:1").acquire(WAIT, LEASE)) {
                    return lease != null;
                }
            }));
            scenarios.add(
                    new Scenario(overhead, "@DistributedLock method, SpEL key", 1, t -> () -> annotated.work("1")));
            for (Scenario scenario : scenarios) {
                Measurement measurement = harness.measure(scenario);
                System.out.printf(
                        Locale.ROOT,
                        "%-32s %-44s %12.0f acq/s %6.2f round trips/acq %6.2f cmd/acq%n",
                        scenario.group(),
                        scenario.contender(),
                        measurement.acquisitionsPerSecond(),
                        measurement.roundTripsPerAcquisition(),
                        measurement.commandsPerAcquisition());
                results.add(measurement);
            }
            String redisVersion = server.client()
                    .info("server")
                    .lines()
                    .filter(line -> line.startsWith("redis_version:"))
                    .findFirst()
                    .orElse("redis_version:?");
            Report report = new Report(results, trial, warmUp, trials, redisVersion, LocalDate.now());
            System.out.println();
            System.out.println(report.markdown());
            write(out, report);
            spring.close();
            first.close();
            second.close();
            redis.close();
        }
    }

    static List<Scenario> scenarios(UnifiedJedis redis, Turnstile first, Turnstile second) {
        String uncontended = "1 thread, uncontended";
        String contended = "8 threads, one key";
        String semaphore = "16 threads, 2 processes, one semaphore";
        return List.of(
                new Scenario(uncontended, "raw SET NX PX + DEL", 1, t -> {
                    RawLock lock = new RawLock(redis, "raw:solo", false);
                    return () -> {
                        boolean ok = lock.tryAcquire();
                        lock.release();
                        return ok;
                    };
                }),
                new Scenario(uncontended, "raw SET NX PX + owner-checked Lua release", 1, t -> {
                    RawLock lock = new RawLock(redis, "raw:solo-checked", true);
                    return () -> {
                        boolean ok = lock.tryAcquire();
                        lock.release();
                        return ok;
                    };
                }),
                new Scenario(uncontended, "Turnstile RedisLock, fixed lease", 1, t -> () -> {
                    try (Lease lease = first.lock("solo").acquire(WAIT, LEASE)) {
                        return lease != null;
                    }
                }),
                new Scenario(uncontended, "Turnstile RedisLock, watchdog lease", 1, t -> () -> {
                    try (Lease lease = first.lock("solo-watchdog").acquire(WAIT, null)) {
                        return lease != null;
                    }
                }),
                new Scenario(contended, "raw SET NX PX spin + owner-checked release", 8, t -> {
                    RawLock lock = new RawLock(redis, "raw:hot", true);
                    return () -> {
                        lock.acquireSpinning();
                        lock.release();
                        return true;
                    };
                }),
                new Scenario(contended, "Turnstile RedisLock, 1 process", 8, t -> () -> {
                    try (Lease lease = first.lock("hot").acquire(WAIT, LEASE)) {
                        return lease != null;
                    }
                }),
                new Scenario(contended, "Turnstile RedisLock, 2 processes x 4", 8, t -> {
                    Turnstile process = t % 2 == 0 ? first : second;
                    return () -> {
                        try (Lease lease = process.lock("hot-2").acquire(WAIT, LEASE)) {
                            return lease != null;
                        }
                    };
                }),
                new Scenario(semaphore, "Turnstile RedisLock (a limit of 1), for comparison", 16, t -> {
                    Turnstile process = t % 2 == 0 ? first : second;
                    return () -> {
                        try (Lease lease = process.lock("sem-compare").acquire(WAIT, LEASE)) {
                            return lease != null;
                        }
                    };
                }),
                new Scenario(semaphore, "Turnstile RedisSemaphore, limit 5", 16, t -> {
                    RedisSemaphore permits = (t % 2 == 0 ? first : second).semaphore("partner-api", 5);
                    return () -> {
                        try (Lease permit = permits.acquire(WAIT, LEASE)) {
                            return permit != null;
                        }
                    };
                }),
                new Scenario(semaphore, "Turnstile RedisSemaphore, limit 5, fair", 16, t -> {
                    RedisSemaphore permits = (t % 2 == 0 ? first : second)
                            .semaphore("partner-api-fair", 5)
                            .fair();
                    return () -> {
                        try (Lease permit = permits.acquire(WAIT, LEASE)) {
                            return permit != null;
                        }
                    };
                }));
    }

    private static redis.clients.jedis.JedisClientConfig clientConfig() {
        return redis.clients.jedis.DefaultJedisClientConfig.builder()
                .timeoutMillis(5_000)
                .build();
    }

    private static void write(Path out, Report report) throws IOException {
        Files.createDirectories(out);
        Files.writeString(out.resolve("lock-redis.md"), report.markdown());
        Files.writeString(out.resolve("lock-redis.csv"), report.csv());
        System.out.println("Wrote " + out.resolve("lock-redis.md") + " and " + out.resolve("lock-redis.csv"));
    }

    private static long parseMillis(String value) {
        if (value.endsWith("ms")) {
            return Long.parseLong(value.substring(0, value.length() - 2));
        }
        if (value.endsWith("s")) {
            return Long.parseLong(value.substring(0, value.length() - 1)) * 1000;
        }
        return Long.parseLong(value);
    }
}
