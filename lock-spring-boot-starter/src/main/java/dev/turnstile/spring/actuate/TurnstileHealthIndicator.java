package dev.turnstile.spring.actuate;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.support.TurnstileRuntime;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** Up when Redis answers and the watchdog runs; details: scripts cached on the server. */
public class TurnstileHealthIndicator implements HealthIndicator {

    private final Turnstile turnstile;

    public TurnstileHealthIndicator(Turnstile turnstile) {
        this.turnstile = turnstile;
    }

    @Override
    public Health health() {
        TurnstileRuntime runtime = this.turnstile.runtime();
        try {
            String pong = runtime.call("ping Redis", redis -> redis.ping());
            int[] scripts = runtime.scriptsLoaded();
            Health.Builder health = runtime.watchdog().isRunning() ? Health.up() : Health.down();
            return health.withDetail("redis", pong)
                    .withDetail("watchdog", runtime.watchdog().isRunning() ? "running" : "stopped")
                    .withDetail("scriptsLoaded", scripts[0] + " of " + scripts[1] + " used")
                    .build();
        } catch (RuntimeException e) {
            return Health.down(e)
                    .withDetail("watchdog", runtime.watchdog().isRunning() ? "running" : "stopped")
                    .build();
        }
    }
}
