package dev.turnstile.spring.internal.actuate;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.TurnstileDiagnostics;
import dev.turnstile.redis.lock.Redlock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Turnstile's health, in a form every Spring Boot line's health indicator can report: up when
 * Redis answers and the watchdog runs; details are the server's reply, the watchdog's state, how
 * many of Turnstile's scripts the server has cached and, per server (and Redlock master), whether
 * it may evict keys ({@code eviction}), and when down a {@code reason} that says what is down
 * (Redis did not answer, and why; or the watchdog stopped). A server that may evict keys leaves the
 * status up: it is a risk to name, not an outage. Thread-safe; each {@link #check()} makes two Redis
 * calls and one {@code INFO memory} per server (a server that refused {@code INFO} is not asked
 * again).
 */
public final class TurnstileHealthCheck {

    private final Turnstile turnstile;
    private final @Nullable Redlock redlock;

    /** Checks {@code turnstile}. */
    public TurnstileHealthCheck(Turnstile turnstile) {
        this(turnstile, null);
    }

    /** Checks {@code turnstile} and, when given, whether {@code redlock}'s masters may evict keys. */
    public TurnstileHealthCheck(Turnstile turnstile, @Nullable Redlock redlock) {
        this.turnstile = turnstile;
        this.redlock = redlock;
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
            details.put("eviction", eviction());
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
     * Checks now and answers with a Boot line's own health builder: {@code up} or {@code down}, given
     * the details by {@code withDetails}. Each Boot line's indicator is {@code report(Health::up,
     * Health::down, Health.Builder::withDetails).build()}; no exception is attached, as the details'
     * reason already says what is down, once.
     */
    public <B> B report(Supplier<B> up, Supplier<B> down, BiFunction<B, Map<String, ?>, B> withDetails) {
        Result result = check();
        return withDetails.apply(result.up() ? up.get() : down.get(), result.details());
    }

    /** Per server, {@code "noeviction"}, {@code "allkeys-lru, maxmemory ... : may evict lock keys"}, .... */
    private Map<String, String> eviction() {
        List<TurnstileDiagnostics.Eviction> servers =
                new ArrayList<>(this.turnstile.diagnostics().eviction());
        if (this.redlock != null) {
            servers.addAll(this.redlock.eviction());
        }
        Map<String, String> eviction = new LinkedHashMap<>();
        servers.forEach(server -> eviction.put(server.server(), server.summary()));
        return eviction;
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
