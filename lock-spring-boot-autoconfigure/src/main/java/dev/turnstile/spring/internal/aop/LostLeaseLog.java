package dev.turnstile.spring.internal.aop;

import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LeaseLostEvent;
import dev.turnstile.spring.aop.OnLeaseLost;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells, at WARN on the logger {@code dev.turnstile.lease}, each lease a guarded method lost: the
 * lock or semaphore, the method, this node, how it was lost and what that means for the method's
 * work under the configured {@link OnLeaseLost} mode. The core's own loss report goes to the same
 * logger; this line adds what only the starter knows.
 */
final class LostLeaseLog {

    private static final Logger log = LoggerFactory.getLogger("dev.turnstile.lease");

    private final OnLeaseLost mode;

    LostLeaseLog(OnLeaseLost mode) {
        this.mode = mode;
    }

    /** Logs the loss of {@code operation}'s lease. */
    void lost(GuardOperation operation, LeaseLostEvent event) {
        log.warn(
                "{} '{}' of {} on node {} was lost: {} ({}), found {}. {}",
                operation.kind() == LeaseKind.LOCK ? "Lock" : "A permit of semaphore",
                event.name(),
                operation.description(),
                Node.NAME,
                event.reason().description(),
                event.reason(),
                event.overdue().isZero()
                        ? "before the lease's deadline"
                        : formatted(event.overdue()) + " after the lease's deadline",
                consequence(operation));
    }

    private String consequence(GuardOperation operation) {
        boolean confirms = operation.spec() instanceof LockSpec lock && lock.confirmBeforeCommit();
        String commit = confirms
                ? " A transaction it has not committed yet is rolled back at its commit (confirmBeforeCommit)."
                : "";
        return switch (this.mode) {
            case LOG ->
                "The method runs on (turnstile.lock.on-lease-lost=log): work it commits may not have been exclusive."
                        + commit;
            case INTERRUPT ->
                "Its thread is interrupted (turnstile.lock.on-lease-lost=interrupt); if it has returned, the call"
                        + " fails with LockLostException, as its work may not have been exclusive." + commit;
            case ROLLBACK ->
                "A transaction it has not committed yet is rolled back (turnstile.lock.on-lease-lost=rollback);"
                        + " if it has returned, the call fails with LockLostException, as its work may not have"
                        + " been exclusive.";
        };
    }

    private static String formatted(Duration duration) {
        return duration.toMillis() + "ms";
    }

    /** This node: its host name and process id; looked up on the first loss, not at startup. */
    private static final class Node {

        static final String NAME = node();

        private Node() {}
    }

    private static String node() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException | SecurityException e) {
            host = System.getenv().getOrDefault("HOSTNAME", "unknown-host");
        }
        return host + " (pid " + ProcessHandle.current().pid() + ")";
    }
}
