package dev.turnstile.sample.market;

/**
 * The result of one list or purchase call.
 *
 * @param outcome what happened
 * @param retries how many times a WATCH transaction was retried (0 under a lock)
 */
public record TradeResult(Outcome outcome, int retries) {

    static TradeResult of(Outcome outcome) {
        return new TradeResult(outcome, 0);
    }
}
