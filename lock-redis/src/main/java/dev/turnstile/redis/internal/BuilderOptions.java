package dev.turnstile.redis.internal;

import dev.turnstile.redis.LockFactoryBuilder;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * How Turnstile's own builders reach the options that their public base, {@link
 * LockFactoryBuilder}, collects, without a public or protected signature naming this module's
 * internal {@link TurnstileOptions}. The base hands over its accessor once, when it is initialised.
 */
public final class BuilderOptions {

    private static volatile Function<LockFactoryBuilder<?>, TurnstileOptions.Builder> access;

    private BuilderOptions() {}

    /** Called once, by {@link LockFactoryBuilder}'s initialiser; a second call is refused. */
    public static synchronized void grant(Function<LockFactoryBuilder<?>, TurnstileOptions.Builder> accessor) {
        if (access != null) {
            throw new IllegalStateException("The builder options' accessor is already set");
        }
        access = Objects.requireNonNull(accessor, "accessor");
    }

    /** The options collected so far by {@code builder}. */
    public static TurnstileOptions.Builder of(LockFactoryBuilder<?> builder) {
        return access.apply(builder);
    }

    /**
     * A builder setter: applies {@code option} to the options {@code builder} collects, then
     * returns {@code builder}.
     */
    public static <B extends LockFactoryBuilder<B>> B set(B builder, Consumer<TurnstileOptions.Builder> option) {
        option.accept(of(builder));
        return builder;
    }
}
