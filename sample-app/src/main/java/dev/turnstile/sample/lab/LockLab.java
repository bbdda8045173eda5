package dev.turnstile.sample.lab;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.semaphore.Permit;
import dev.turnstile.redis.semaphore.RedisSemaphore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * Puts each stage of the book's locking through the faults that break it and reports what
 * happened: stuck forever, recovered after N s, over the limit N times, or held.
 */
public final class LockLab {

    /** The faults, in column order. */
    public static final List<String> FAULTS =
            List.of("holder crash", "crash between SETNX and EXPIRE", "10 ms client clock skew", "fair-semaphore race");

    private static final int LOCK_TIMEOUT_SECONDS = 1;
    private static final long SEMAPHORE_TIMEOUT_MILLIS = 1_000;
    private static final long HORIZON_MILLIS = 3_000;
    private static final int ROUNDS = 50;

    private final Supplier<Jedis> connections;
    private final UnifiedJedis shared;

    /**
     * @param connections new single connections to the lab's own Redis (flushed between runs)
     * @param shared a pooled client on the same Redis for Turnstile
     */
    public LockLab(Supplier<Jedis> connections, UnifiedJedis shared) {
        this.connections = connections;
        this.shared = shared;
    }

    /** The stages, in row order. */
    public static final List<String> STAGES = List.of(
            "naive SETNX lock (6.8)",
            "SETNX + EXPIRE lock (6.11)",
            "basic semaphore (6.12)",
            "fair semaphore (6.14)",
            "fair semaphore + lock (6.16)",
            "Turnstile RedisLock",
            "Turnstile RedisSemaphore");

    /**
     * Told after each stage has met its faults.
     *
     * @param done how many stages are done, from 1
     * @param total how many stages there are
     * @param stage the stage just done
     * @param outcomes its row: fault → outcome
     */
    public record Progress(int done, int total, String stage, Map<String, String> outcomes) {}

    /** Runs every stage against every fault; stage → fault → outcome. */
    public Map<String, Map<String, String>> run() {
        return run(progress -> {});
    }

    /** Runs every stage against every fault, telling {@code progress} after each stage. */
    public Map<String, Map<String, String>> run(Consumer<Progress> progress) {
        SemaphoreAcquire basic =
                (conn, clock) -> BookSemaphores.acquireSemaphore(conn, "sem", 1, SEMAPHORE_TIMEOUT_MILLIS, clock);
        SemaphoreAcquire fairAcquire = (conn, clock) -> fair(conn, false, clock, () -> {});
        SemaphoreAcquire lockedAcquire = (conn, clock) -> fair(conn, true, clock, () -> {});
        List<Supplier<Map<String, String>>> rows = List.of(
                () -> row(naiveLockCrash(), "n/a: no EXPIRE at all", "n/a", "n/a"),
                () -> row(timeoutLockCrash(false), timeoutLockCrash(true), "n/a", "n/a"),
                () -> row(semaphoreCrash(basic), "n/a", clockSkew(basic, "sem"), "n/a"),
                () -> row(
                        semaphoreCrash(fairAcquire),
                        "n/a",
                        clockSkew(fairAcquire, "sem", "sem:owner"),
                        fairSemaphoreRace(false)),
                () -> row(
                        semaphoreCrash(lockedAcquire),
                        "n/a",
                        clockSkew(lockedAcquire, "sem", "sem:owner"),
                        fairSemaphoreRace(true)),
                () -> row(turnstileLockCrash(), "cannot happen: SET NX PX is one command", "n/a", "n/a"),
                () -> row(turnstileSemaphoreCrash(), "n/a", turnstileSemaphoreSkew(), turnstileSemaphoreRace()));
        Map<String, Map<String, String>> table = new LinkedHashMap<>();
        for (int i = 0; i < STAGES.size(); i++) {
            Map<String, String> outcomes = rows.get(i).get();
            table.put(STAGES.get(i), outcomes);
            progress.accept(new Progress(i + 1, STAGES.size(), STAGES.get(i), outcomes));
        }
        return table;
    }

    /** Renders the table as Markdown. */
    public static String markdown(Map<String, Map<String, String>> table) {
        StringBuilder text = new StringBuilder("| stage | " + String.join(" | ", FAULTS) + " |\n|---");
        text.append("|---".repeat(FAULTS.size())).append("|\n");
        table.forEach((stage, outcomes) -> {
            text.append("| ").append(stage);
            FAULTS.forEach(fault -> text.append(" | ").append(outcomes.get(fault)));
            text.append(" |\n");
        });
        return text.toString();
    }

    private static Map<String, String> row(String crash, String setnxExpire, String skew, String race) {
        Map<String, String> row = new LinkedHashMap<>();
        row.put(FAULTS.get(0), crash);
        row.put(FAULTS.get(1), setnxExpire);
        row.put(FAULTS.get(2), skew);
        row.put(FAULTS.get(3), race);
        return row;
    }

    private String naiveLockCrash() {
        try (Jedis holder = fresh();
                Jedis next = this.connections.get()) {
            BookLocks.acquireLock(holder, "market", 10); // ... and the holder dies without releasing
            long start = System.nanoTime();
            String acquired = BookLocks.acquireLock(next, "market", HORIZON_MILLIS);
            return acquired != null
                    ? recovered(start)
                    : "stuck forever (ttl " + next.ttl("lock:market") + ": the key never expires)";
        }
    }

    private String timeoutLockCrash(boolean betweenSetnxAndExpire) {
        try (Jedis holder = fresh();
                Jedis next = this.connections.get()) {
            BookLocks.acquireLockWithTimeout(holder, "market", 10, LOCK_TIMEOUT_SECONDS, betweenSetnxAndExpire);
            long start = System.nanoTime();
            String acquired =
                    BookLocks.acquireLockWithTimeout(next, "market", HORIZON_MILLIS, LOCK_TIMEOUT_SECONDS, false);
            if (acquired == null) {
                return "stuck";
            }
            return recovered(start) + (betweenSetnxAndExpire ? " (the next caller repaired the missing TTL)" : "");
        }
    }

    @FunctionalInterface
    private interface SemaphoreAcquire {
        String acquire(Jedis conn, LongSupplier clock);
    }

    private String semaphoreCrash(SemaphoreAcquire acquire) {
        try (Jedis holder = fresh();
                Jedis next = this.connections.get()) {
            acquire.acquire(holder, System::currentTimeMillis); // ... and the holder dies
            long start = System.nanoTime();
            while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(HORIZON_MILLIS)) {
                if (acquire.acquire(next, System::currentTimeMillis) != null) {
                    return recovered(start) + " (timed out by the clients' clocks)";
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
            return "stuck";
        }
    }

    /**
     * Each round, two clients acquire the semaphore of one permit, one's clock 9 ms ahead of the
     * other's; then {@code keys} are deleted. Counts the rounds in which both got it.
     */
    private String clockSkew(SemaphoreAcquire acquire, String... keys) {
        int over = 0;
        try (Jedis fast = fresh();
                Jedis slow = this.connections.get()) {
            for (int round = 0; round < ROUNDS; round++) {
                long now = System.currentTimeMillis();
                String a = acquire.acquire(fast, () -> now + 10);
                String b = acquire.acquire(slow, () -> now + 1);
                over += a != null && b != null ? 1 : 0;
                fast.del(keys);
            }
        }
        return overLimit(over);
    }

    /** Client A takes its counter, then stalls; client B acquires completely; then A goes on. */
    private String fairSemaphoreRace(boolean withLock) {
        int over = 0;
        try (Jedis a = fresh();
                Jedis b = this.connections.get()) {
            for (int round = 0; round < ROUNDS; round++) {
                String[] second = new String[1];
                String first = fair(
                        a,
                        withLock,
                        System::currentTimeMillis,
                        () -> second[0] = CompletableFuture.supplyAsync(
                                        () -> fair(b, withLock, System::currentTimeMillis, () -> {}))
                                .join());
                over += first != null && second[0] != null ? 1 : 0;
                a.del("sem", "sem:owner", "lock:sem");
            }
        }
        return overLimit(over);
    }

    private static String fair(Jedis conn, boolean withLock, LongSupplier clock, Runnable pause) {
        return withLock
                ? BookSemaphores.acquireSemaphoreWithLock(conn, "sem", 1, SEMAPHORE_TIMEOUT_MILLIS, clock, pause)
                : BookSemaphores.acquireFairSemaphore(conn, "sem", 1, SEMAPHORE_TIMEOUT_MILLIS, clock, pause);
    }

    private String turnstileLockCrash() {
        try (Jedis setup = fresh()) {
            Turnstile crashed = Turnstile.builder(this.shared).build();
            crashed.lock("market").acquire(Duration.ZERO, Duration.ofSeconds(LOCK_TIMEOUT_SECONDS));
            crashed.close(); // ... and the holder dies: nothing renews or releases its lease
            try (Turnstile next = Turnstile.builder(this.shared).build()) {
                long start = System.nanoTime();
                Optional<Lease> lease = next.lock("market").tryAcquire(Duration.ofMillis(HORIZON_MILLIS), null);
                lease.ifPresent(Lease::release);
                return lease.isPresent() ? recovered(start) + " (its lease)" : "stuck";
            }
        }
    }

    private String turnstileSemaphoreCrash() {
        try (Jedis setup = fresh()) {
            Turnstile crashed = Turnstile.builder(this.shared).build();
            crashed.semaphore("sem", 1).acquire(Duration.ZERO, Duration.ofMillis(SEMAPHORE_TIMEOUT_MILLIS));
            crashed.close();
            try (Turnstile next = Turnstile.builder(this.shared).build()) {
                long start = System.nanoTime();
                Optional<Permit> permit = next.semaphore("sem", 1).tryAcquire(Duration.ofMillis(HORIZON_MILLIS), null);
                permit.ifPresent(Permit::release);
                return permit.isPresent() ? recovered(start) + " (its lease, by the server's clock)" : "stuck";
            }
        }
    }

    private String turnstileSemaphoreSkew() {
        int over = 0;
        try (Jedis setup = fresh();
                Turnstile turnstile = Turnstile.builder(this.shared).build()) {
            RedisSemaphore semaphore = turnstile.semaphore("sem", 1);
            for (int round = 0; round < ROUNDS; round++) {
                Optional<Permit> a = semaphore.tryAcquire();
                Optional<Permit> b = semaphore.tryAcquire();
                over += a.isPresent() && b.isPresent() ? 1 : 0;
                a.ifPresent(Permit::release);
                b.ifPresent(Permit::release);
            }
        }
        return overLimit(over) + " (no client clock is used)";
    }

    private String turnstileSemaphoreRace() {
        int over = 0;
        try (Jedis setup = fresh();
                Turnstile turnstile = Turnstile.builder(this.shared).build()) {
            RedisSemaphore semaphore = turnstile.semaphore("sem", 1).fair();
            for (int round = 0; round < ROUNDS; round++) {
                CompletableFuture<Optional<Permit>> a = CompletableFuture.supplyAsync(semaphore::tryAcquire);
                CompletableFuture<Optional<Permit>> b = CompletableFuture.supplyAsync(semaphore::tryAcquire);
                List<Permit> held = new ArrayList<>();
                a.join().ifPresent(held::add);
                b.join().ifPresent(held::add);
                over += held.size() > 1 ? 1 : 0;
                held.forEach(Permit::release);
            }
        }
        return overLimit(over) + " (one script: nothing to interleave)";
    }

    private Jedis fresh() {
        Jedis conn = this.connections.get();
        conn.flushDB(); // the lab's own redis-server
        return conn;
    }

    /**
     * How an outcome of the table reads at a glance: {@code broken} (stuck, or over the limit),
     * {@code n/a} (the fault does not apply to the stage), else {@code held} (recovered, held, or
     * the fault cannot happen).
     */
    public static String verdict(String outcome) {
        if (outcome.startsWith("stuck") || outcome.startsWith("over the limit")) {
            return "broken";
        }
        if (outcome.startsWith("n/a")) {
            return "n/a";
        }
        return "held";
    }

    private static String recovered(long startNanos) {
        return String.format(Locale.ROOT, "recovered after %.1f s", (System.nanoTime() - startNanos) / 1e9);
    }

    private static String overLimit(int over) {
        return over == 0
                ? "held: never over the limit in " + ROUNDS + " rounds"
                : "over the limit " + over + " times in " + ROUNDS + " rounds";
    }
}
