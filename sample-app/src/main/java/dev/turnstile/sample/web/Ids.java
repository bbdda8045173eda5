package dev.turnstile.sample.web;

/**
 * The rule for the ids a client creates (users, items): they become part of Redis keys, market
 * members ({@code itemId.sellerId}) and URLs, so they are short and plain.
 */
final class Ids {

    /** 1 to 64 letters, digits, '-' or '_'. */
    static final String PATTERN = "^[A-Za-z0-9_-]{1,64}$";

    /** The rule, as a 400 states it. */
    static final String RULE = "must be 1 to 64 characters, each a letter, a digit, '-' or '_'";

    private static final java.util.regex.Pattern COMPILED = java.util.regex.Pattern.compile(PATTERN);

    private Ids() {}

    /** Returns {@code value} if it follows the rule, else throws a 400 naming {@code field}. */
    static String require(String field, String value) {
        if (!COMPILED.matcher(value).matches()) {
            throw new InvalidInputException(field, "'" + field + "' " + RULE + ".");
        }
        return value;
    }
}
