package dev.turnstile.sample.web;

/** A user is created with an id that is taken (HTTP 409): creating never overwrites a user. */
final class UserExistsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    UserExistsException(String id) {
        super("There is already a user '" + id + "'.");
    }
}
