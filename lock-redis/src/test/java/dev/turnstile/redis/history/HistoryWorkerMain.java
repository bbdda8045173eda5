package dev.turnstile.redis.history;

import dev.turnstile.test.history.History;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A holder process of a history run: runs the {@link Workload} and appends its holds to a file.
 * Prints {@code READY} once connected, runs once a line ("go") comes on its standard input, and
 * prints {@code DONE} at the end.
 *
 * <pre>
 * PRIMITIVE PROCESS PORTS(comma separated: one, or Redlock's masters) LEASE_MS RUN_MS THREADS HISTORY_FILE
 * </pre>
 */
public final class HistoryWorkerMain {

    private HistoryWorkerMain() {}

    public static void main(String[] args) throws Exception {
        Primitive primitive = Primitive.valueOf(args[0]);
        String process = args[1];
        Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
        long runNanos = Duration.ofMillis(Long.parseLong(args[4])).toNanos();
        int threads = Integer.parseInt(args[5]);
        History history = History.appendingTo(Path.of(args[6]));
        try (Deployment.Clients clients = Deployment.connect(primitive, args[2], lease)) {
            System.out.println("READY");
            System.out.flush();
            // The run starts when the parent says so, once every process is ready: a child that
            // started first must not have finished before the nemesis pauses or kills it.
            new java.io.BufferedReader(
                            new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8))
                    .readLine();
            new Workload(process, primitive, clients.locks(), history, HistoryRun.WAIT, HistoryRun.MAX_WORK)
                    .run(threads, System.nanoTime() + runNanos);
        }
        System.out.println("DONE");
        System.out.flush();
        System.exit(0);
    }
}
