package dev.turnstile.sample.web;

/** A path names a user that does not exist (HTTP 404). */
final class UnknownUserException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    UnknownUserException(String id) {
        super("There is no user '" + id + "'.");
    }
}
