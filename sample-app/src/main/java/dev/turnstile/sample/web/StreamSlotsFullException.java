package dev.turnstile.sample.web;

/**
 * Every stream slot of an account is taken (HTTP 429, without {@code Retry-After}): a slot is held
 * for as long as its stream stays open, so waiting a second helps nothing; closing a stream does.
 */
final class StreamSlotsFullException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    StreamSlotsFullException(String accountId, int slots) {
        super("All " + slots + " stream slots of account '" + accountId + "' are taken, each held until its stream"
                + " closes: close one of the account's streams to open another.");
    }
}
