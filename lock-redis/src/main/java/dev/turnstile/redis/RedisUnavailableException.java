package dev.turnstile.redis;

/**
 * Redis could not be reached or did not answer in time (connection refused, socket timeout, a
 * replica or loading server refusing writes). Wraps the Jedis exception as its cause.
 */
public final class RedisUnavailableException extends TurnstileException {

    private static final long serialVersionUID = 1L;

    /** Creates the exception; {@code message} names the operation and the lock or semaphore. */
    public RedisUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
