package dev.turnstile.spring.boot3;

import dev.turnstile.spring.internal.actuate.TurnstileHealthCheck;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/** The {@code turnstile} health contributor on Spring Boot 3.5: see {@link TurnstileHealthCheck}. */
public class TurnstileHealthIndicator implements HealthIndicator {

    private final TurnstileHealthCheck check;

    /** Reports {@code check}. */
    public TurnstileHealthIndicator(TurnstileHealthCheck check) {
        this.check = check;
    }

    @Override
    public Health health() {
        return this.check
                .report(Health::up, Health::down, Health.Builder::withDetails)
                .build();
    }
}
