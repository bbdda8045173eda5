package dev.turnstile.spring;

import dev.turnstile.spring.autoconfigure.TurnstileAutoConfiguration;
import dev.turnstile.spring.boot4.TurnstileBoot4AutoConfiguration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ApplicationContext;

/** What differs between Spring Boot lines in the shared starter tests: here, Spring Boot 4. */
public final class BootLine {

    private BootLine() {}

    /** The auto-configurations an application on this line gets: Boot's Redis, Turnstile's, the line's. */
    public static AutoConfigurations turnstile() {
        return AutoConfigurations.of(
                DataRedisAutoConfiguration.class,
                TurnstileAutoConfiguration.class,
                TurnstileBoot4AutoConfiguration.class);
    }

    /** The line-specific configuration classes, for the back-off check. */
    public static List<Class<?>> lineConfigurations() {
        return List.of(TurnstileBoot4AutoConfiguration.class.getDeclaredClasses());
    }

    /** Asks the context's Turnstile health indicator. */
    public static HealthView health(ApplicationContext context) {
        Health health = context.getBean("turnstileHealthIndicator", HealthIndicator.class)
                .health();
        return new HealthView(health.getStatus().getCode(), health.getDetails());
    }

    /**
     * A health answer.
     *
     * @param status UP or DOWN
     * @param details the details
     */
    public record HealthView(String status, Map<String, Object> details) {}
}
