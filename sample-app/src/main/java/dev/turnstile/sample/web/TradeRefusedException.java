package dev.turnstile.sample.web;

import dev.turnstile.sample.market.Outcome;

/** A list or purchase that the marketplace refused (item missing, funds too low, ...). */
public final class TradeRefusedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final Outcome outcome;
    private final transient TradeLog.Trade trade;

    TradeRefusedException(Outcome outcome, TradeLog.Trade trade) {
        super(
                switch (outcome) {
                    case NOT_IN_INVENTORY -> "The seller does not have this item in inventory.";
                    case NOT_LISTED -> "The item is not on the market at this price.";
                    case INSUFFICIENT_FUNDS -> "The buyer's funds are below the price.";
                    case UNKNOWN_USER -> "Unknown user.";
                    case GAVE_UP -> "Too much contention: the transaction was retried for 10 s and gave up.";
                    case DONE -> "done";
                });
        this.outcome = outcome;
        this.trade = trade;
    }

    /** The refused trade as the lock log has it: which locks it took, its wait, their tokens. */
    public TradeLog.Trade trade() {
        return this.trade;
    }

    public Outcome outcome() {
        return this.outcome;
    }
}
