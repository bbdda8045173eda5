package dev.turnstile.benchmarks;

import dev.turnstile.benchmarks.Scenario.Contender;
import dev.turnstile.test.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * What each library leaves in Redis per lock name that was used once: {@code names} distinct names
 * locked and released (8 threads), then the keys and bytes ({@code MEMORY USAGE}) under the
 * library's key pattern, right after and once the leases (1 s for Turnstile) and Turnstile's fence
 * retention (10 s) are over.
 */
final class IdleNames {

    /** How long after the run the second count is taken. */
    static final Duration AFTER = Duration.ofSeconds(12);

    /**
     * One library's row.
     *
     * @param contender the library and lock
     * @param names distinct names locked and released once each
     * @param keysRightAfter keys under its pattern right after the run
     * @param bytesRightAfter their bytes
     * @param keysLater keys after {@link #AFTER}
     * @param bytesLater their bytes
     */
    record Row(
            String contender, int names, long keysRightAfter, long bytesRightAfter, long keysLater, long bytesLater) {

        String markdown() {
            return String.format(
                    Locale.ROOT,
                    "| %s | %,d | %,d | %.0f | %,d | %.0f |%n",
                    this.contender,
                    this.names,
                    this.keysRightAfter,
                    (double) this.bytesRightAfter / this.names,
                    this.keysLater,
                    (double) this.bytesLater / this.names);
        }
    }

    /** A library under test: how to lock name {@code i}, and the pattern of the keys it writes. */
    record Library(String contender, String pattern, IntFunction<Contender> lockOnName) {}

    private IdleNames() {}

    /** Runs every library, then counts twice; the libraries use disjoint key patterns. */
    static List<Row> measure(RedisServer server, int names, List<Library> libraries) throws Exception {
        long[][] rightAfter = new long[libraries.size()][];
        for (int l = 0; l < libraries.size(); l++) {
            run(libraries.get(l), names);
            rightAfter[l] = count(server, libraries.get(l).pattern());
        }
        Thread.sleep(AFTER.toMillis());
        List<Row> rows = new ArrayList<>();
        for (int l = 0; l < libraries.size(); l++) {
            long[] later = count(server, libraries.get(l).pattern());
            rows.add(new Row(
                    libraries.get(l).contender(), names, rightAfter[l][0], rightAfter[l][1], later[0], later[1]));
        }
        return rows;
    }

    private static void run(Library library, int names) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> work = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                work.add(pool.submit(() -> {
                    for (int i = thread; i < names; i += 8) {
                        Contender lock = library.lockOnName().apply(i);
                        Object handle = lock.acquire();
                        lock.release(handle);
                    }
                    return null;
                }));
            }
            for (Future<?> done : work) {
                done.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    /** Returns {keys, bytes} under {@code pattern}. */
    private static long[] count(RedisServer server, String pattern) {
        long keys = 0;
        long bytes = 0;
        try (Jedis jedis = new Jedis(server.hostAndPort())) {
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page =
                        jedis.scan(cursor, new ScanParams().match(pattern).count(1000));
                Pipeline pipeline = jedis.pipelined();
                List<Response<Long>> usage = new ArrayList<>();
                for (String key : page.getResult()) {
                    usage.add(pipeline.memoryUsage(key));
                }
                pipeline.sync();
                for (Response<Long> used : usage) {
                    Long value = used.get();
                    bytes += value == null ? 0 : value;
                    keys += value == null ? 0 : 1;
                }
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        }
        return new long[] {keys, bytes};
    }

    static Duration lease() {
        return Duration.ofSeconds(1);
    }
}
