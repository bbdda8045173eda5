package dev.turnstile.sample;

import java.util.function.Supplier;
import org.springframework.test.context.DynamicPropertyRegistry;

/** Points a sample test's application at a redis-server the test started itself. */
final class TestRedis {

    private TestRedis() {}

    /** Registers {@code spring.data.redis.host} and {@code .port} for the server on {@code port}. */
    static void use(DynamicPropertyRegistry registry, Supplier<Integer> port) {
        registry.add("spring.data.redis.host", () -> "127.0.0.1");
        registry.add("spring.data.redis.port", port::get);
    }
}
