package dev.turnstile.spring.actuate;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.TurnstileDiagnostics;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Turnstile's health, in a form every Spring Boot line's health indicator can report: up when
 * Redis answers and the watchdog runs; details are the server's reply, the watchdog's state and
 * how many of Turnstile's scripts the server has cached, and when down a {@code reason} that says
 * what is down (Redis did not answer, and why; or the watchdog stopped). Thread-safe; each {@link
 * #check()} makes two Redis calls.
 */
public final class TurnstileHealthCheck {

    private final Turnstile turnstile;

    /** Checks {@code turnstile}. */
    public TurnstileHealthCheck(Turnstile turnstile) {
        this.turnstile = turnstile;
    }

    /** Checks Redis and the watchdog now; never throws. */
    public Result check() {
        TurnstileDiagnostics.Health health = this.turnstile.diagnostics().health();
        Map<String, Object> details = new LinkedHashMap<>();
        if (health.redis() != null) {
            details.put("redis", health.redis());
        }
        details.put("watchdog", health.watchdogRunning() ? "running" : "stopped");
        if (health.error() == null) {
            details.put("scriptsLoaded", health.scriptsCached() + " of " + health.scriptsUsed() + " used");
        } else {
            details.put("reason", health.error().getMessage());
        }
        if (!health.watchdogRunning()) {
            details.merge(
                    "reason",
                    "the lease watchdog is stopped: leases are no longer renewed",
                    (redis, watchdog) -> redis + "; " + watchdog);
        }
        return new Result(health.up(), details, health.error());
    }

    /**
     * One check's outcome.
     *
     * @param up whether Redis answered and the watchdog runs
     * @param details what was seen, for the health endpoint
     * @param error why Redis did not answer, or null
     */
    public record Result(
            boolean up,
            Map<String, Object> details,
            @Nullable Exception error) {}
}
