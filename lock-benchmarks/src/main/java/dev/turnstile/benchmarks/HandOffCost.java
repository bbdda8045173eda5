package dev.turnstile.benchmarks;

import dev.turnstile.benchmarks.Scenario.Contender;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.RedisServer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import one.profiler.AsyncProfiler;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.UnifiedJedis;

/**
 * Where a hot key's hand-off goes: 8 threads on one Turnstile lock (a fixed lease, nothing held)
 * against 8 threads on one fair {@link ReentrantLock}, in alternating rounds of one process. Per
 * round: acquisitions/s, this process's and the server's CPU per acquisition, and the worker
 * threads' voluntary context switches per acquisition (each worker reads its own from {@code
 * /proc/thread-self/status}, so the count is of parks that really slept). Then one more Turnstile
 * round under async-profiler (CPU samples of the worker threads), split into the parts of a
 * hand-off. Writes {@code docs/benchmarks/hand-off.md}.
 */
public final class HandOffCost {

    private static final int THREADS = 8;
    private static final int ROUNDS = 9;
    private static final Duration RUN = Duration.ofSeconds(2);
    private static final String WORKER = "hand-off-worker-";
    /** The profiled round's length: long enough for a few thousand samples at the profiler's interval. */
    private static final Duration PROFILED = Duration.ofSeconds(5);
    /**
     * The profiler's interval: a sample interrupts the thread it takes, so more often than this
     * slows the hand-offs it measures (every 500 µs the round ran at a quarter of its rate).
     */
    private static final String SAMPLE_EVERY = "2ms";
    /**
     * Switches per acquisition from which an anchor round counts as one whose hand-offs wake a
     * sleeping thread (about one each); below, many of them reach a thread that has not parked yet.
     */
    private static final double WAKING = 0.9;

    /**
     * The parts of a profiled hand-off, each the first of these its stack matches (a stack's frames
     * as async-profiler names them, {@code package/Class.method}).
     */
    private static final Map<String, List<String>> PARTS = parts();

    private HandOffCost() {}

    private static Map<String, List<String>> parts() {
        Map<String, List<String>> parts = new LinkedHashMap<>();
        parts.put(
                "waiting awake while queued at the local gate (yielding the CPU, a turn due soon)",
                List.of("QueuedThread.stayAwake"));
        parts.put("parking while queued at the local gate (futex wait and the switch)", List.of("QueuedThread.await"));
        parts.put("waking the next holder at the hand-off (futex wake)", List.of("QueuedThread.wake"));
        parts.put(
                "the cohort's refill (a Redis round trip, on the thread that passed the lock on)",
                List.of("CohortRefill.start"));
        parts.put(
                "parking or waking on a lock two threads met at (the gate's, a scheduler's)",
                List.of("LockSupport.park", "LockSupport.unpark"));
        return parts;
    }

    /** One round of one contender. */
    private record Round(long acquisitions, long nanos, long cpuNanos, double serverCpuSeconds, long switches) {

        double perSecond() {
            return this.acquisitions / (this.nanos / 1e9);
        }

        double cpuMicros() {
            return this.cpuNanos / 1e3 / this.acquisitions;
        }

        double serverMicros() {
            return this.serverCpuSeconds * 1e6 / this.acquisitions;
        }

        double switchesPerAcquisition() {
            return this.switches < 0 ? Double.NaN : this.switches / (double) this.acquisitions;
        }
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        try (RedisServer server = RedisServer.start();
                UnifiedJedis client = server.newClient(Duration.ofSeconds(5));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            Contender lock = Contenders.turnstile(turnstile, "hot", Duration.ofSeconds(Contenders.LEASE_SECONDS));
            Contender anchor = Contenders.fairReentrantLock(new ReentrantLock(true));
            run(server, lock, Duration.ofSeconds(2)); // warm-up, both
            run(server, anchor, Duration.ofSeconds(1));
            List<Round> turnstileRounds = new ArrayList<>();
            List<Round> anchorRounds = new ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                turnstileRounds.add(run(server, lock, RUN));
                anchorRounds.add(run(server, anchor, RUN));
            }
            Profile profile = profile(server, lock);
            WakeUp wakeUp = wakeUp();
            String page = page(turnstileRounds, anchorRounds, profile, wakeUp);
            System.out.println(page);
            Path out = Path.of(args.length > 0 ? args[0] : "docs/benchmarks");
            Files.createDirectories(out);
            Provenance.write(out.resolve("hand-off.md"), Provenance.command(HandOffCost.class), page);
        }
    }

    private static Round run(RedisServer server, Contender contender, Duration duration) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        LongAdder acquisitions = new LongAdder();
        LongAdder switches = new LongAdder();
        AtomicBoolean switchesKnown = new AtomicBoolean(true);
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            workers.add(new Thread(
                    () -> {
                        long before = voluntarySwitches();
                        long done = 0;
                        try {
                            while (!stop.get()) {
                                Object handle = contender.acquire();
                                if (handle == null) {
                                    throw new IllegalStateException("not acquired within the wait");
                                }
                                contender.release(handle);
                                done++;
                            }
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                        long after = voluntarySwitches();
                        if (before < 0 || after < 0) {
                            switchesKnown.set(false);
                        }
                        switches.add(after - before);
                        acquisitions.add(done);
                    },
                    WORKER + i));
        }
        double serverBefore = server.mainThreadCpuSeconds();
        long cpuBefore = processCpuNanos();
        long start = System.nanoTime();
        workers.forEach(Thread::start);
        Thread.sleep(duration.toMillis());
        stop.set(true);
        for (Thread worker : workers) {
            worker.join();
        }
        long nanos = System.nanoTime() - start;
        return new Round(
                acquisitions.sum(),
                nanos,
                processCpuNanos() - cpuBefore,
                server.mainThreadCpuSeconds() - serverBefore,
                switchesKnown.get() ? switches.sum() : -1);
    }

    /** The calling thread's voluntary context switches so far, or -1 where the system does not say. */
    private static long voluntarySwitches() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                if (line.startsWith("voluntary_ctxt_switches:")) {
                    return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    /** A profiled round: each part's share of the workers' samples, and the round itself; or why there is none. */
    private record Profile(
            @Nullable Map<String, Double> shares, @Nullable Round round, String note) {}

    private static Profile profile(RedisServer server, Contender lock) throws Exception {
        AsyncProfiler profiler;
        try {
            profiler = AsyncProfiler.getInstance();
        } catch (Throwable unavailable) { // no library for this platform: the page says so
            return new Profile(null, null, "async-profiler could not be loaded here (" + unavailable + ").");
        }
        String event = "cpu";
        try {
            profiler.execute("start,event=cpu,interval=" + SAMPLE_EVERY + ",threads");
        } catch (IllegalStateException | IOException perfEventsRefused) {
            event = "itimer";
            profiler.execute("start,event=itimer,interval=" + SAMPLE_EVERY + ",threads");
        }
        Round round = run(server, lock, PROFILED);
        profiler.execute("stop");
        String collapsed = profiler.execute("collapsed");
        Map<String, Double> samples = new LinkedHashMap<>();
        PARTS.keySet().forEach(part -> samples.put(part, 0.0));
        String rest = "everything else: the lease, its timers, the gate's bookkeeping, the caller's loop";
        samples.put(rest, 0.0);
        double total = 0;
        for (String line : collapsed.split("\n")) {
            int space = line.lastIndexOf(' ');
            if (space < 0 || !line.startsWith("[" + WORKER)) {
                continue;
            }
            double count = Double.parseDouble(line.substring(space + 1));
            String stack = line.substring(0, space);
            total += count;
            String part = PARTS.entrySet().stream()
                    .filter(entry -> entry.getValue().stream().anyMatch(stack::contains))
                    .map(Map.Entry::getKey)
                    .findFirst()
                    .orElse(rest);
            samples.merge(part, count, Double::sum);
        }
        if (total == 0) {
            return new Profile(null, round, "async-profiler took no sample of the worker threads.");
        }
        double all = total;
        samples.replaceAll((part, count) -> count / all);
        return new Profile(
                samples,
                round,
                String.format(
                        Locale.ROOT,
                        "async-profiler %s, event %s every %s for %d s, %,.0f samples of the worker threads.",
                        profiler.getVersion(),
                        event,
                        SAMPLE_EVERY.replace("ms", " ms"),
                        PROFILED.toSeconds(),
                        total));
    }

    /**
     * What waking a parked thread costs on this machine, at the median of {@link #WAKE_UPS}: the
     * {@code unpark} call on the waking thread, and the time from its start until the woken thread runs.
     */
    private record WakeUp(double unparkMicros, double wokenMicros) {}

    private static final int WAKE_UPS = 2_000;

    /**
     * One thread parks, another unparks it once it has been parked a while, {@link #WAKE_UPS} times;
     * the woken thread reads the clock first thing.
     */
    private static WakeUp wakeUp() throws InterruptedException {
        // runs after the rounds, on a machine as quiet as theirs
        long[] unpark = new long[WAKE_UPS];
        long[] woken = new long[WAKE_UPS];
        AtomicLong wokenAt = new AtomicLong();
        AtomicBoolean parked = new AtomicBoolean();
        AtomicBoolean done = new AtomicBoolean();
        Thread sleeper = new Thread(
                () -> {
                    while (!done.get()) {
                        parked.set(true);
                        LockSupport.park();
                        long now = System.nanoTime();
                        if (!parked.get()) {
                            wokenAt.set(now);
                        }
                    }
                },
                WORKER + "sleeper");
        sleeper.start();
        for (int i = 0; i < WAKE_UPS; i++) {
            while (!parked.get()) {
                Thread.onSpinWait();
            }
            // Long enough to be asleep in the kernel, not just flagged; the waker stays on its CPU.
            for (long until = System.nanoTime() + 200_000; System.nanoTime() - until < 0; ) {
                Thread.onSpinWait();
            }
            wokenAt.set(0);
            parked.set(false);
            long start = System.nanoTime();
            LockSupport.unpark(sleeper);
            unpark[i] = System.nanoTime() - start;
            long at;
            while ((at = wokenAt.get()) == 0) {
                Thread.onSpinWait();
            }
            woken[i] = at - start;
        }
        done.set(true);
        LockSupport.unpark(sleeper);
        sleeper.join();
        return new WakeUp(medianMicros(unpark), medianMicros(woken));
    }

    private static double medianMicros(long[] nanos) {
        long[] sorted = nanos.clone();
        java.util.Arrays.sort(sorted);
        return sorted[sorted.length / 2] / 1e3;
    }

    private static String page(List<Round> turnstile, List<Round> anchor, Profile profile, WakeUp wakeUp) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(
                Locale.ROOT,
                "%d threads on one key: Turnstile's lock (a fixed %d s lease, released at once) and a fair"
                        + " `ReentrantLock` (no Redis), %d rounds of %d s each, in turns, in one process on %d"
                        + " cores. CPU per acquisition: this process's (all its threads) and the server's main"
                        + " thread; switches: the worker threads' voluntary context switches (a park that slept)."
                        + "\n\n| round | Turnstile /s | CPU µs | server µs | switches | fair ReentrantLock /s"
                        + " | CPU µs | switches | ratio |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
                THREADS,
                Contenders.LEASE_SECONDS,
                ROUNDS,
                RUN.toSeconds(),
                Runtime.getRuntime().availableProcessors()));
        for (int i = 0; i < turnstile.size(); i++) {
            Round t = turnstile.get(i);
            Round a = anchor.get(i);
            out.append(String.format(
                    Locale.ROOT,
                    "| %d | %,.0f | %.1f | %.1f | %.2f | %,.0f | %.1f | %.2f | %.2f× |%n",
                    i + 1,
                    t.perSecond(),
                    t.cpuMicros(),
                    t.serverMicros(),
                    t.switchesPerAcquisition(),
                    a.perSecond(),
                    a.cpuMicros(),
                    a.switchesPerAcquisition(),
                    t.perSecond() / a.perSecond()));
        }
        out.append(summary(turnstile, anchor));
        out.append(String.format(
                Locale.ROOT,
                "%n%nA wake-up on this machine (one thread unparks another that has been asleep in the kernel, %,d"
                        + " times, the waker spinning until the woken thread runs): the `unpark` call took %.1f µs"
                        + " at the median, and the woken thread ran %.1f µs after the call began.",
                WAKE_UPS,
                wakeUp.unparkMicros(),
                wakeUp.wokenMicros()));
        out.append("\n\nWhere the worker threads' CPU goes in a Turnstile round under the profiler")
                .append(" (each sample counted once, in the first part its stack matches). ")
                .append(profile.note())
                .append('\n');
        Map<String, Double> shares = profile.shares();
        Round round = profile.round();
        if (shares != null && round != null) {
            out.append(String.format(
                    Locale.ROOT,
                    "The profiled round: %,.0f acquisitions/s, %.1f µs of this process's CPU per acquisition.%n%n",
                    round.perSecond(),
                    round.cpuMicros()));
            out.append("| part | share of the workers' samples |\n|---|---:|\n");
            shares.forEach(
                    (part, share) -> out.append(String.format(Locale.ROOT, "| %s | %.0f%% |%n", part, share * 100)));
        }
        return out.toString();
    }

    /**
     * The anchor's rounds fall in two kinds: those where a hand-off costs a sleeping thread's wake-up
     * (about a switch per acquisition, {@link #WAKING} or more) and those where many hand-offs reach
     * a thread that has not parked yet; Turnstile's ratio is given against each, as medians.
     */
    private static String summary(List<Round> turnstile, List<Round> anchor) {
        List<Double> slower = new ArrayList<>();
        List<Double> faster = new ArrayList<>();
        List<Double> all = new ArrayList<>();
        for (int i = 0; i < turnstile.size(); i++) {
            double ratio = turnstile.get(i).perSecond() / anchor.get(i).perSecond();
            all.add(ratio);
            double switches = anchor.get(i).switchesPerAcquisition();
            if (!Double.isNaN(switches)) {
                (switches >= WAKING ? slower : faster).add(ratio);
            }
        }
        StringBuilder out = new StringBuilder(String.format(
                Locale.ROOT,
                "%nMedian ratio over all rounds: %.2f×. The anchor's rounds with %.1f switches or more per"
                        + " acquisition (a hand-off wakes a sleeping thread): %d",
                median(all),
                WAKING,
                slower.size()));
        if (!slower.isEmpty()) {
            out.append(String.format(Locale.ROOT, " (median ratio %.2f×)", median(slower)));
        }
        out.append(String.format(
                Locale.ROOT, "; with fewer (many hand-offs reach a thread not parked yet): %d", faster.size()));
        if (!faster.isEmpty()) {
            out.append(String.format(Locale.ROOT, " (median ratio %.2f×)", median(faster)));
        }
        return out.append('.').toString();
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        return sorted.get(sorted.size() / 2);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
