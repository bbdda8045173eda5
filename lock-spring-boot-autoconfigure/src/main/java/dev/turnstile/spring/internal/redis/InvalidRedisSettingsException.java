package dev.turnstile.spring.internal.redis;

/**
 * The {@code spring.data.redis.*} settings Turnstile reads itself cannot describe a connection;
 * the message names the property and what to write instead. The application must not start.
 */
public final class InvalidRedisSettingsException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    InvalidRedisSettingsException(String message) {
        super(message);
    }
}
