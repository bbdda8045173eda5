package dev.turnstile.sample.market;

/** What a list or purchase did. */
public enum Outcome {
    /** Listed, or bought. */
    DONE,
    /** The seller does not have the item in inventory. */
    NOT_IN_INVENTORY,
    /** The item is not on the market at that price (sold, or never listed). */
    NOT_LISTED,
    /** The buyer's funds are below the price. */
    INSUFFICIENT_FUNDS,
    /** A user does not exist. */
    UNKNOWN_USER,
    /** The WATCH loop ran out of time (the book gives up after 10 s). */
    GAVE_UP
}
