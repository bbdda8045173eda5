package dev.turnstile.redis.internal;

import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.redis.TurnstileException;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/** Translates Jedis exceptions into Turnstile's at the boundary, keeping the cause. */
final class RedisErrors {

    /** What to do about an ACL refusal. */
    public static final String GRANT_ADVICE = "Grant that user the rule in the README's \"A Redis user for"
            + " Turnstile\" (the server's ACL LOG names what was refused).";

    private RedisErrors() {}

    /**
     * Returns the exception to throw for {@code cause}, raised while doing {@code operation} (e.g.
     * {@code "acquire lock 'item:42'"}).
     */
    public static TurnstileException translate(JedisException cause, String operation) {
        if (isUnavailable(cause)) {
            String tls = TlsFailures.explain(cause, TlsFailures.SERVER_SETTINGS);
            if (tls != null) {
                return new RedisUnavailableException(
                        "Redis could not be reached over this connection while trying to " + operation + ": " + tls
                                + ".",
                        cause);
            }
            return new RedisUnavailableException(
                    "Redis unavailable while trying to " + operation + ": "
                            + withoutFinalPeriod(String.valueOf(cause.getMessage()))
                            + ". Check that Redis is up and reachable; the socket timeout of the Jedis"
                            + " client bounds how long a call waits.",
                    cause);
        }
        String message = String.valueOf(cause.getMessage());
        if (message.startsWith("WRONGPASS") || message.startsWith("NOAUTH")) {
            return new TurnstileException(
                    "Redis refused the credentials Turnstile connects with, trying to " + operation + ": "
                            + withoutFinalPeriod(message) + ". Check the user name and password of the"
                            + " Redis client (with Spring Boot: spring.data.redis.username and"
                            + " spring.data.redis.password).",
                    cause);
        }
        if (isRefusedToUser(cause)) {
            return new TurnstileException(
                    "Redis refused the command to " + operation + " to the user Turnstile connects as: "
                            + withoutFinalPeriod(message) + ". " + GRANT_ADVICE,
                    cause);
        }
        return new TurnstileException("Redis rejected the command to " + operation + ": " + cause.getMessage(), cause);
    }

    private static String withoutFinalPeriod(String message) {
        String trimmed = message.strip();
        while (trimmed.endsWith(".")) {
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        return trimmed;
    }

    /**
     * Whether {@code cause} is an ACL refusal: a command, key or channel the connection's Redis user
     * may not use, called directly or from a script, in the words of Redis 6.2 and 7.0 ({@code
     * NOPERM}, "can't run this command or subcommand" inside a script) or of Valkey 8, which Redis 7.2
     * may share ("ACL failure in script: User … has no permissions to run …").
     */
    public static boolean isRefusedToUser(JedisException cause) {
        String message = String.valueOf(cause.getMessage());
        return message.startsWith("NOPERM")
                || message.contains("can't run this command or subcommand")
                || message.contains("ACL failure in script");
    }

    /** Whether {@code cause} means "Redis is not there or not ready", as opposed to a bad command. */
    public static boolean isUnavailable(JedisException cause) {
        if (cause instanceof JedisConnectionException || cause instanceof JedisClusterOperationException) {
            return true;
        }
        if (cause instanceof JedisDataException) {
            String message = String.valueOf(cause.getMessage());
            return message.startsWith("READONLY")
                    || message.startsWith("LOADING")
                    || message.startsWith("MASTERDOWN")
                    || message.startsWith("CLUSTERDOWN")
                    || message.startsWith("TRYAGAIN")
                    || message.startsWith("BUSY");
        }
        return cause.getCause() instanceof java.io.IOException;
    }
}
