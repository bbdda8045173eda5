package dev.turnstile.benchmarks;

import dev.turnstile.benchmarks.Scenario.Contender;
import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Two JVM processes on one key: this process and a child JVM, each running one library's lock on
 * {@code threads} threads at the same time. Counts the acquisitions of both; commands per
 * acquisition from the server.
 */
final class TwoProcessRun {

    private TwoProcessRun() {}

    /**
     * Returns {acquisitions per second of both processes, commands per acquisition, this process's
     * share of the acquisitions, acquire p99 in µs (the higher of the two processes')}.
     */
    static double[] measure(RedisServer server, String library, String key, int threads, Duration duration)
            throws Exception {
        try (ChildJvm child = ChildJvm.start(
                ProcessWorkerMain.class, library, Integer.toString(server.port()), key, Integer.toString(threads))) {
            child.awaitLineStartingWith("READY", Duration.ofSeconds(60));
            List<AutoCloseable> resources = new ArrayList<>();
            Contender contender = ProcessWorkerMain.contender(library, server.port(), key, resources);
            WorkerGroup workers = new WorkerGroup(contender, threads);
            server.resetStats();
            long start = System.nanoTime();
            child.send("go");
            workers.start();
            Thread.sleep(duration.toMillis());
            long own = workers.stop();
            child.send("stop");
            double seconds = (System.nanoTime() - start) / 1e9;
            String[] counted =
                    child.awaitLineStartingWith("COUNT", Duration.ofSeconds(60)).split(" ");
            long childCount = Long.parseLong(counted[1]);
            double p99 = Math.max(workers.latencyMicros(0.99), Double.parseDouble(counted[2]));
            long commands = Harness.commands(server.commandCounts());
            for (AutoCloseable resource : resources) {
                resource.close();
            }
            long total = own + childCount;
            return new double[] {
                total / seconds,
                total == 0 ? Double.NaN : (double) commands / total,
                total == 0 ? Double.NaN : (double) own / total,
                p99
            };
        }
    }
}
