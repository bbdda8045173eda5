package dev.turnstile.redis;

import org.jspecify.annotations.Nullable;

/** Base of every exception Turnstile throws; unchecked. */
public class TurnstileException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Creates an exception with a message and an optional cause. */
    public TurnstileException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    /**
     * Creates an exception for an expected outcome (contention), which skips the stack trace: it
     * would only show the caller, and filling it in costs more than the lock itself.
     */
    protected TurnstileException(String message) {
        super(message, null, false, false);
    }
}
