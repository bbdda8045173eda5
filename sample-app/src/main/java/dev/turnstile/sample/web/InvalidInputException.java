package dev.turnstile.sample.web;

/**
 * Input the marketplace refuses (HTTP 400), naming the field or parameter and the rule. Its
 * message is written for the client; nothing else's message ever is.
 */
public final class InvalidInputException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String field;

    public InvalidInputException(String field, String message) {
        super(message);
        this.field = field;
    }

    String field() {
        return this.field;
    }
}
