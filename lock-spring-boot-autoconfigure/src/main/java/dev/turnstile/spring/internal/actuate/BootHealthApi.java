package dev.turnstile.spring.internal.actuate;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.lock.Redlock;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.core.env.Environment;

/**
 * One Spring Boot line's health API (its {@code HealthIndicator}, {@code Health} and {@code
 * Health.Builder} moved between lines), and Turnstile's {@code turnstile} contributors built with
 * it: each Boot-line module names its own classes here and registers what this returns.
 *
 * @param <I> the line's {@code HealthIndicator}
 * @param <H> the line's {@code Health}
 * @param <B> the line's {@code Health.Builder}
 * @param up {@code Health::up}
 * @param down {@code Health::down}
 * @param withDetails {@code Health.Builder::withDetails}
 * @param build {@code Health.Builder::build}
 * @param indicator a {@code HealthIndicator} that answers what the supplier gives
 */
public record BootHealthApi<I, H, B>(
        Supplier<B> up,
        Supplier<B> down,
        BiFunction<B, Map<String, ?>, B> withDetails,
        Function<B, H> build,
        Function<Supplier<H>, I> indicator) {

    /**
     * The {@code turnstile} indicator: checks Redis and the watchdog at each call ({@link
     * TurnstileHealthCheck}), and whether {@code redlock}'s masters may evict keys when given.
     */
    public I turnstile(Turnstile turnstile, @Nullable Redlock redlock) {
        TurnstileHealthCheck check = new TurnstileHealthCheck(turnstile, redlock);
        return this.indicator.apply(() -> this.build.apply(check.report(this.up, this.down, this.withDetails)));
    }

    /**
     * The contributor that stands in for a switched-off indicator a health group includes: up, and
     * saying what switched it off ({@link TurnstileHealthSwitchedOff}).
     */
    public I switchedOff(Environment environment) {
        H health = this.build.apply(
                this.withDetails.apply(this.up.get(), TurnstileHealthSwitchedOff.details(environment)));
        return this.indicator.apply(() -> health);
    }
}
