package dev.turnstile.spring.internal.redis;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a failed start caused by {@code spring.data.redis.*} settings Turnstile cannot use. */
final class InvalidRedisSettingsFailureAnalyzer extends AbstractFailureAnalyzer<InvalidRedisSettingsException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidRedisSettingsException cause) {
        return new FailureAnalysis(
                "Turnstile cannot connect to Redis as configured: " + cause.getMessage(),
                "Fix the spring.data.redis property named above (redis://host:port/database, host:port nodes,"
                        + " an SSL bundle defined under spring.ssl.bundle.*),"
                        + " or add spring-boot-starter-data-redis so Spring Boot resolves the connection,"
                        + " or define a RedisConnection or UnifiedJedis bean.",
                cause);
    }
}
