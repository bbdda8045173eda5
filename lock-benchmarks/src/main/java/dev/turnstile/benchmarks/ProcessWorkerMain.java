package dev.turnstile.benchmarks;

import dev.turnstile.benchmarks.Scenario.Contender;
import dev.turnstile.redis.Turnstile;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import redis.clients.jedis.JedisPooled;

/**
 * The other process of the two-process scenario: runs one library's contender on {@code threads}
 * threads against {@code key}, from "go" on its standard input until "stop", then prints {@code
 * COUNT n p99}: grants, and the 99th percentile of acquire latency in microseconds. Arguments:
 * library (turnstile, redisson, spring-integration, spring-integration-spin), port, key, threads.
 */
public final class ProcessWorkerMain {

    private ProcessWorkerMain() {}

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        String library = args[0];
        int port = Integer.parseInt(args[1]);
        String key = args[2];
        int threads = Integer.parseInt(args[3]);
        List<AutoCloseable> resources = new ArrayList<>();
        Contender contender = contender(library, port, key, resources);
        BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("READY");
        input.readLine();
        WorkerGroup workers = new WorkerGroup(contender, threads);
        workers.start();
        input.readLine();
        long count = workers.stop();
        System.out.println("COUNT " + count + " " + workers.latencyMicros(0.99));
        for (AutoCloseable resource : resources) {
            resource.close();
        }
        System.exit(0);
    }

    static Contender contender(String library, int port, String key, List<AutoCloseable> resources) {
        switch (library) {
            case "turnstile" -> {
                JedisPooled redis = new JedisPooled("127.0.0.1", port);
                Turnstile turnstile = Turnstile.builder(redis).build();
                resources.add(turnstile);
                resources.add(redis);
                return Contenders.turnstile(turnstile, key, Duration.ofSeconds(Contenders.LEASE_SECONDS));
            }
            case "redisson" -> {
                Config config = new Config();
                config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
                RedissonClient redisson = Redisson.create(config);
                resources.add(redisson::shutdown);
                return Contenders.redisson(redisson, "r-" + key);
            }
            default -> {
                JedisConnectionFactory factory =
                        new JedisConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
                factory.afterPropertiesSet();
                factory.start();
                boolean spin = library.endsWith("-spin");
                RedisLockRegistry registry =
                        new RedisLockRegistry(factory, spin ? "si-spin" : "si-pubsub", Duration.ofSeconds(60));
                registry.setRedisLockType(
                        spin
                                ? RedisLockRegistry.RedisLockType.SPIN_LOCK
                                : RedisLockRegistry.RedisLockType.PUB_SUB_LOCK);
                resources.add(registry::destroy);
                resources.add(factory::destroy);
                return Contenders.springIntegration(registry, key);
            }
        }
    }
}
