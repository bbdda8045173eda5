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
 * race-fair PORT NAME LIMIT THREADS MILLIS
 *                                         prints "READY"; after "go", runs {@link FairRace#run}
 *                                         for MILLIS; prints "RESULT max granted timedOut", "DONE"
 * arrivals-fair PORT NAME LIMIT           prints "READY"; for each line "wait LABEL" starts a
 *                                         thread that waits for a permit of the fair semaphore,
 *                                         appends LABEL to the list {@code fifo-order} and
 *                                         releases; at "end" waits for them and prints "DONE"
 * queue PORT NAME LIMIT THREADS MILLIS LEASE_MS FAIR COHORT_MS DELAY_MS
 *                                         DELAY_MS after "go", runs {@link LocalQueue#run} for
 *                                         MILLIS, with a cohort of 200 holders and COHORT_MS; prints
 *                                         "RESULT max holds passes duplicates" then "DONE"
 * </pre>
 */
public final class SemaphoreWorkerMain {

    /** The longest a {@code queue} worker holds a permit. */
    static final Duration MAX_HOLD = Duration.ofMillis(10);

    private SemaphoreWorkerMain() {}

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[1]);
        String name = args[2];
        int limit = Integer.parseInt(args[3]);
        BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (UnifiedJedis redis = RedisClients.standalone(
                        new HostAndPort("127.0.0.1", port),
                        DefaultJedisClientConfig.builder().build());
                Turnstile turnstile = withCohort(Turnstile.builder(redis), args).build()) {
            RedisSemaphore semaphore = turnstile.semaphore(name, limit);
            if (args[0].equals("wait-fair")) {
                System.out.println("WAITING");
                System.out.flush();
                if (semaphore.fair().tryAcquire(Duration.ofSeconds(60), null).isPresent()) {
                    System.out.println("ACQUIRED");
                }
            } else if (args[0].equals("race-fair")) {
                System.out.println("READY");
                input.readLine();
                FairRace.Result result = FairRace.run(
                        semaphore.fair(), redis, Integer.parseInt(args[4]), Duration.ofMillis(Long.parseLong(args[5])));
                System.out.println("RESULT " + result.maxHolders() + " " + result.granted() + " " + result.timedOut());
                System.out.println("DONE");
            } else if (args[0].equals("arrivals-fair")) {
                System.out.println("READY");
                List<Thread> waiters = new ArrayList<>();
                for (String line = input.readLine(); line != null && !line.equals("end"); line = input.readLine()) {
                    String label = line.substring("wait ".length());
                    RedisSemaphore fair = semaphore.fair();
                    Thread waiter = new Thread(() -> FairRace.takeTurn(fair, redis, label));
                    waiter.start();
                    waiters.add(waiter);
                }
                for (Thread waiter : waiters) {
                    waiter.join();
                }
                System.out.println("DONE");
            } else if (args[0].equals("queue")) {
                if (Boolean.parseBoolean(args[7])) {
                    semaphore = semaphore.fair();
                }
                System.out.println("READY");
                input.readLine();
                Thread.sleep(Long.parseLong(args[9]));
                LocalQueue.Result result = LocalQueue.run(
                        semaphore,
                        redis,
                        Integer.parseInt(args[4]),
                        Duration.ofMillis(Long.parseLong(args[5])),
                        Duration.ofMillis(Long.parseLong(args[6])),
                        MAX_HOLD);
                System.out.println("RESULT " + result.maxHolders() + " " + result.holds() + " " + result.passes() + " "
                        + result.duplicateTokens() + " " + result.lost());
                System.out.println("DONE");
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

    private static Turnstile.Builder withCohort(Turnstile.Builder builder, String[] args) {
        if (args[0].equals("queue")) {
            builder.lockCohort(200, Duration.ofMillis(Long.parseLong(args[8])));
        }
        return builder;
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

    /**
     * Many threads of one process on one semaphore, each holding a permit for a random moment (up
     * to {@code maxHold}) and releasing it, so that most permits pass between local threads. Every
     * hold is counted in Redis (INCR after the grant, DECR before the release: exact at all times,
     * across processes) and its fencing token is added to a Redis set (a token seen twice is a
     * duplicate).
     */
    static final class LocalQueue {

        static final String TOKENS = "tokens-seen";

        /**
         * @param maxHolders the most holders counted at once
         * @param holds the permits acquired
         * @param passes the holds whose permit id an earlier hold of this process had: passed on locally
         * @param duplicateTokens tokens that another hold had already
         * @param lost the holds whose lease was reported lost (a thread stalled past its lease: its
         *     permit expired while it was still counted)
         */
        record Result(long maxHolders, long holds, long passes, long duplicateTokens, long lost) {}

        private LocalQueue() {}

        static Result run(
                RedisSemaphore semaphore,
                UnifiedJedis redis,
                int threads,
                Duration duration,
                Duration lease,
                Duration maxHold)
                throws Exception {
            long end = System.nanoTime() + duration.toNanos();
            java.util.Set<String> ids = java.util.concurrent.ConcurrentHashMap.newKeySet();
            java.util.concurrent.atomic.LongAdder holds = new java.util.concurrent.atomic.LongAdder();
            java.util.concurrent.atomic.LongAdder passes = new java.util.concurrent.atomic.LongAdder();
            java.util.concurrent.atomic.LongAdder duplicates = new java.util.concurrent.atomic.LongAdder();
            java.util.concurrent.atomic.LongAdder lost = new java.util.concurrent.atomic.LongAdder();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<Long>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    long max = 0;
                    while (System.nanoTime() < end) {
                        Permit permit = semaphore.acquire(Duration.ofSeconds(60), lease);
                        permit.onLost(event -> lost.increment());
                        try {
                            max = Math.max(max, redis.incr(HolderCount.KEY));
                            holds.increment();
                            if (!ids.add(permit.id())) {
                                passes.increment();
                            }
                            if (redis.sadd(TOKENS + ":" + semaphore.name(), Long.toString(permit.fencingToken()))
                                    == 0) {
                                duplicates.increment();
                            }
                            java.util.concurrent.locks.LockSupport.parkNanos(
                                    java.util.concurrent.ThreadLocalRandom.current()
                                            .nextLong(maxHold.toNanos() + 1));
                        } finally {
                            redis.decr(HolderCount.KEY);
                            permit.release();
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
            return new Result(max, holds.sum(), passes.sum(), duplicates.sum(), lost.sum());
        }
    }

    /**
     * Waiters of a fair semaphore that mostly give up: each waits a random moment (up to 20 ms), so
     * that releases keep handing permits to heads that are timing out. Every hold is counted in
     * Redis (INCR after the grant, DECR before the release: exact across processes).
     */
    static final class FairRace {

        /** The list the turns of {@link #takeTurn} are appended to, in grant order. */
        static final String ORDER = "fifo-order";

        /**
         * @param maxHolders the most holders counted at once
         * @param granted the permits granted
         * @param timedOut the waits that ended without a permit
         */
        record Result(long maxHolders, long granted, long timedOut) {}

        private FairRace() {}

        static Result run(RedisSemaphore semaphore, UnifiedJedis redis, int threads, Duration duration)
                throws Exception {
            long end = System.nanoTime() + duration.toNanos();
            java.util.concurrent.atomic.LongAdder granted = new java.util.concurrent.atomic.LongAdder();
            java.util.concurrent.atomic.LongAdder timedOut = new java.util.concurrent.atomic.LongAdder();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<Long>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    long max = 0;
                    java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
                    while (System.nanoTime() < end) {
                        java.util.Optional<Permit> permit =
                                semaphore.tryAcquire(Duration.ofMillis(random.nextLong(21)), Duration.ofSeconds(10));
                        if (permit.isEmpty()) {
                            timedOut.increment();
                            continue;
                        }
                        granted.increment();
                        try {
                            max = Math.max(max, redis.incr(HolderCount.KEY));
                            java.util.concurrent.locks.LockSupport.parkNanos(random.nextLong(2_000_000));
                        } finally {
                            redis.decr(HolderCount.KEY);
                            permit.get().release();
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
            return new Result(max, granted.sum(), timedOut.sum());
        }

        /** Waits for a permit, appends {@code label} to {@link #ORDER}, holds a moment and releases. */
        static void takeTurn(RedisSemaphore semaphore, UnifiedJedis redis, String label) {
            Permit permit = semaphore.acquire(Duration.ofSeconds(60), null);
            try {
                redis.rpush(ORDER, label);
                java.util.concurrent.locks.LockSupport.parkNanos(2_000_000);
            } finally {
                permit.release();
            }
        }
    }
}
