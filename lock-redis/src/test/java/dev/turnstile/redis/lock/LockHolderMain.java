package dev.turnstile.redis.lock;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.NamedLock;
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
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;

/**
 * A second process for lock tests, driven through its standard input and output.
 *
 * <pre>
 * hold PORT NAME LEASE_MS DEFAULT_LEASE_MS   LEASE_MS 0 = watchdog; prints
 *                                            "ACQUIRED token sentNanos returnedNanos" (before the
 *                                            acquire was sent, after it returned),
 *                                            then obeys "release", "extend MS", "held", "exit"
 * count PORT NAME THREADS INCREMENTS         after "go" on stdin, increments a GET/SET counter under
 *                                            the lock; prints "INTERVAL start end token" per hold, then "DONE"
 * churn PORT NAME THREADS DEFAULT_LEASE_MS   threads take and release the lock (watchdog lease) until
 *                                            killed; prints "CHURNING", then "TOKEN t" per hold
 * </pre>
 *
 * On Linux {@link System#nanoTime()} reads CLOCK_MONOTONIC, shared by every process of the machine,
 * so the parent can compare the child's timestamps with its own.
 */
public final class LockHolderMain {

    private LockHolderMain() {}

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[1]);
        try (UnifiedJedis redis = RedisClients.standalone(
                new HostAndPort("127.0.0.1", port),
                DefaultJedisClientConfig.builder().build())) {
            if (args[0].equals("hold")) {
                hold(redis, args[2], Long.parseLong(args[3]), Long.parseLong(args[4]));
            } else if (args[0].equals("churn")) {
                churn(redis, args[2], Integer.parseInt(args[3]), Long.parseLong(args[4]));
            } else {
                count(redis, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
            }
        }
        System.exit(0);
    }

    private static void hold(UnifiedJedis redis, String name, long leaseMillis, long defaultLeaseMillis)
            throws Exception {
        Turnstile turnstile = Turnstile.builder(redis)
                .defaultLease(Duration.ofMillis(defaultLeaseMillis))
                .listener(event -> System.out.println("LOST " + event.reason()))
                .build();
        long sent = System.nanoTime();
        Lease lease = turnstile
                .lock(name)
                .acquire(Duration.ofSeconds(30), leaseMillis == 0 ? null : Duration.ofMillis(leaseMillis));
        long returned = System.nanoTime();
        System.out.println("ACQUIRED " + lease.fencingToken() + " " + sent + " " + returned);
        BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = input.readLine()) != null) {
            String[] command = line.split(" ");
            switch (command[0]) {
                case "release" -> System.out.println("RELEASED " + lease.release());
                case "held" -> System.out.println("HELD " + lease.isHeld());
                case "extend" -> {
                    try {
                        lease.extend(Duration.ofMillis(Long.parseLong(command[1])));
                        System.out.println("EXTENDED");
                    } catch (RuntimeException e) {
                        System.out.println("EXTEND-FAILED " + e.getClass().getSimpleName());
                    }
                }
                case "exit" -> {
                    return;
                }
                default -> System.out.println("UNKNOWN " + line);
            }
        }
    }

    private static void churn(UnifiedJedis redis, String name, int threads, long defaultLeaseMillis) throws Exception {
        Turnstile turnstile = Turnstile.builder(redis)
                .defaultLease(Duration.ofMillis(defaultLeaseMillis))
                .build();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        System.out.println("CHURNING");
        List<Future<?>> loops = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            loops.add(pool.submit(() -> {
                while (true) {
                    try (Lease lease = turnstile.lock(name).acquire(Duration.ofSeconds(30), null)) {
                        System.out.println("TOKEN " + lease.fencingToken());
                    }
                }
            }));
        }
        for (Future<?> loop : loops) {
            loop.get(); // until killed
        }
    }

    private static void count(UnifiedJedis redis, String name, int threads, int increments) throws Exception {
        try (Turnstile turnstile = Turnstile.builder(redis).build()) {
            System.out.println("READY");
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            List<long[]> intervals = CounterWork.run(turnstile.lock(name), redis, "counter", threads, increments);
            StringBuilder out = new StringBuilder();
            for (long[] interval : intervals) {
                out.append("INTERVAL ")
                        .append(interval[0])
                        .append(' ')
                        .append(interval[1])
                        .append(' ')
                        .append(interval[2])
                        .append('\n');
            }
            System.out.print(out);
            System.out.println("DONE");
        }
    }

    /** Increments a counter with a plain GET then SET under the lock, recording each hold: start, end, token. */
    static final class CounterWork {

        private CounterWork() {}

        static List<long[]> run(NamedLock lock, UnifiedJedis redis, String counterKey, int threads, int increments)
                throws Exception {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<List<long[]>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int share = increments / threads + (t < increments % threads ? 1 : 0);
                results.add(pool.submit(() -> {
                    List<long[]> mine = new ArrayList<>(share);
                    for (int i = 0; i < share; i++) {
                        try (Lease lease = lock.acquire(Duration.ofSeconds(60), null)) {
                            long start = System.nanoTime();
                            String value = redis.get(counterKey);
                            redis.set(counterKey, Long.toString(value == null ? 1 : Long.parseLong(value) + 1));
                            mine.add(new long[] {start, System.nanoTime(), lease.fencingToken()});
                        }
                    }
                    return mine;
                }));
            }
            List<long[]> all = new ArrayList<>();
            for (Future<List<long[]>> result : results) {
                all.addAll(result.get());
            }
            pool.shutdown();
            return all;
        }
    }
}
