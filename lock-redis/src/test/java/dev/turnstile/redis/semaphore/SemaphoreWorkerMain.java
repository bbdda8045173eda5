package dev.turnstile.redis.semaphore;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.RedisClients;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;

/**
 * A second process for semaphore tests.
 *
 * <pre>
 * hold PORT NAME LIMIT COUNT LEASE_MS     takes COUNT permits; prints "ACQUIRED sentNanos
 *                                         returnedNanos" (before the first acquire was sent, after
 *                                         the last returned); waits
 * cycle PORT NAME LIMIT THREADS CYCLES [LEASE_MS]
 *                                         prints "READY wallClockMillis"; after "go", runs
 *                                         acquire/hold/release cycles (leases of LEASE_MS, else
 *                                         the watchdog's), counting holders in Redis; prints
 *                                         "MAX n" then "DONE"
 * wait-fair PORT NAME LIMIT               waits up to 60 s for a permit of the fair semaphore,
 *                                         printing "WAITING" first and "ACQUIRED" if it gets one
 * </pre>
 */
public final class SemaphoreWorkerMain {

    private SemaphoreWorkerMain() {}

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[1]);
        String name = args[2];
        int limit = Integer.parseInt(args[3]);
        BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (UnifiedJedis redis = RedisClients.standalone(
                        new HostAndPort("127.0.0.1", port),
                        DefaultJedisClientConfig.builder().build());
                Turnstile turnstile = Turnstile.builder(redis).build()) {
            RedisSemaphore semaphore = turnstile.semaphore(name, limit);
            if (args[0].equals("wait-fair")) {
                System.out.println("WAITING");
                System.out.flush();
                if (semaphore.fair().tryAcquire(Duration.ofSeconds(60), null).isPresent()) {
                    System.out.println("ACQUIRED");
                }
            } else if (args[0].equals("hold")) {
                long sent = System.nanoTime();
                Duration lease = Duration.ofMillis(Long.parseLong(args[5]));
                for (int i = 0; i < Integer.parseInt(args[4]); i++) {
                    semaphore.acquire(Duration.ZERO, lease);
                }
                System.out.println("ACQUIRED " + sent + " " + System.nanoTime());
                input.readLine();
            } else {
                Duration lease = args.length > 6 ? Duration.ofMillis(Long.parseLong(args[6])) : null;
                System.out.println("READY " + System.currentTimeMillis());
                input.readLine();
                long max = HolderCount.cycle(
                        semaphore, redis, Integer.parseInt(args[4]), Integer.parseInt(args[5]), lease);
                System.out.println("MAX " + max);
                System.out.println("DONE");
            }
        }
        System.exit(0);
    }

    /** Acquire, count holders in Redis (INCR), release (DECR first): the count is exact at all times. */
    static final class HolderCount {

        static final String KEY = "holders-now";

        private HolderCount() {}

        /** Runs the cycles on {@code threads} threads with permits of {@code lease} (null: the watchdog's). */
        static long cycle(
                RedisSemaphore semaphore, UnifiedJedis redis, int threads, int cycles, @Nullable Duration lease)
                throws Exception {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<Long>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int share = cycles / threads + (t < cycles % threads ? 1 : 0);
                results.add(pool.submit(() -> {
                    long max = 0;
                    for (int i = 0; i < share; i++) {
                        try (Lease permit = semaphore.acquire(Duration.ofSeconds(60), lease)) {
                            max = Math.max(max, redis.incr(KEY));
                            redis.decr(KEY);
                        }
                    }
                    return max;
                }));
            }
            long max = 0;
            for (Future<Long> result : results) {
                max = Math.max(max, result.get());
            }
            pool.shutdown();
            return max;
        }
    }
}
