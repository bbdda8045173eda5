package dev.turnstile.benchmarks;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.semaphore.RedisSemaphore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import redis.clients.jedis.JedisPooled;

/**
 * One process of {@link SemaphoreBenchmark}'s multi-process rows: runs Turnstile's semaphore on
 * {@code threads} threads from "go" on its standard input until "stop", then prints {@code COUNT
 * n}: the grants since "mark" (the end of the warm-up). Arguments: port, semaphore name, permits,
 * threads, fair (true or false).
 */
public final class SemaphoreProcessMain {

    private SemaphoreProcessMain() {}

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        int port = Integer.parseInt(args[0]);
        String name = args[1];
        int permits = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        boolean fair = Boolean.parseBoolean(args[4]);
        try (JedisPooled redis = new JedisPooled("127.0.0.1", port);
                Turnstile turnstile = Turnstile.builder(redis).build()) {
            RedisSemaphore semaphore = turnstile.semaphore(name, permits);
            if (fair) {
                semaphore = semaphore.fair();
            }
            WorkerGroup workers = new WorkerGroup(Contenders.turnstile(semaphore, SemaphoreBenchmark.WAIT), threads);
            BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            System.out.println("READY");
            input.readLine();
            workers.start();
            input.readLine();
            long warmUp = workers.granted();
            input.readLine();
            long count = workers.stop() - warmUp;
            System.out.println("COUNT " + count);
        }
        System.exit(0);
    }
}
