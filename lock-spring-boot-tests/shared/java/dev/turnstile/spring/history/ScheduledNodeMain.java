package dev.turnstile.spring.history;

import dev.turnstile.spring.BootLine;
import dev.turnstile.test.history.History;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A node of the scheduled history runs in its own JVM, so that the test can stop it (SIGSTOP) or
 * kill it (SIGKILL) in the middle of a run: an application context with {@link ReportJob} whose
 * runs are appended to a history file. Prints {@code READY} once started, {@code RUN <token>} at
 * each run's start, and {@code DONE} after {@code STOP} on its standard input closed the context.
 *
 * <pre>
 * NODE REDIS_PORT LEASE_MS HISTORY_FILE
 * </pre>
 */
public final class ScheduledNodeMain {

    private ScheduledNodeMain() {}

    public static void main(String[] args) throws Exception {
        History history = History.appendingTo(Path.of(args[3]));
        ScheduledRuns.announce = true;
        new ApplicationContextRunner()
                .withConfiguration(BootLine.turnstile())
                .withUserConfiguration(ReportJob.Config.class)
                .withBean(History.class, () -> history)
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + args[1],
                        "turnstile.default-lease=" + args[2] + "ms",
                        "node=" + args[0])
                .run(context -> {
                    if (context.getStartupFailure() != null) {
                        throw context.getStartupFailure();
                    }
                    System.out.println("READY");
                    System.out.flush();
                    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                    for (String line = in.readLine(); line != null && !line.equals("STOP"); line = in.readLine()) {
                        // waiting for STOP
                    }
                });
        System.out.println("DONE");
        System.out.flush();
        System.exit(0);
    }
}
