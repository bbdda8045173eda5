package dev.turnstile.sample.benchmark;

import java.util.List;

/**
 * Table 6.3 of Redis in Action: "Performance of fine-grained locking over 60 seconds".
 *
 * @param listers listing workers
 * @param buyers buying workers
 * @param strategy {@code watch} (no lock), {@code lock} or {@code fine}
 * @param listed items listed in 60 s, as printed
 * @param bought items bought in 60 s, as printed
 * @param retries purchase retries, as printed
 * @param averageWait average wait per purchase, as printed
 */
record BookTable(
        int listers, int buyers, String strategy, String listed, String bought, String retries, String averageWait) {

    static final List<BookTable> ROWS = List.of(
            new BookTable(1, 1, "watch", "145,000", "27,000", "80,000", "14 ms"),
            new BookTable(1, 1, "lock", "51,000", "50,000", "0", "1 ms"),
            new BookTable(1, 1, "fine", "113,000", "110,000", "0", "<1 ms"),
            new BookTable(5, 1, "watch", "331,000", "<200", "50,000", "150 ms"),
            new BookTable(5, 1, "lock", "68,000", "13,000", "<10", "5 ms"),
            new BookTable(5, 1, "fine", "192,000", "36,000", "0", "<2 ms"),
            new BookTable(5, 5, "watch", "206,000", "<600", "161,000", "498 ms"),
            new BookTable(5, 5, "lock", "21,000", "20,500", "0", "14 ms"),
            new BookTable(5, 5, "fine", "116,000", "111,000", "0", "<3 ms"));

    /**
     * A value as the book printed it, as a number: {@code "145,000"} is 145000, {@code "14 ms"} is
     * 14, and {@code "<200"} is 200 with {@code upperBound} set (the book gives only a bound).
     *
     * @param number the number printed (milliseconds for a wait)
     * @param upperBound whether the book printed {@code <} before it
     */
    record Value(double number, boolean upperBound) {

        static Value parse(String printed) {
            String text = printed.trim();
            boolean bound = text.startsWith("<");
            String digits =
                    text.replace("<", "").replace("ms", "").replace(",", "").trim();
            return new Value(Double.parseDouble(digits), bound);
        }
    }

    /** The book's items listed per 60 s, as a number. */
    Value listedValue() {
        return Value.parse(this.listed);
    }

    /** The book's items bought per 60 s, as a number. */
    Value boughtValue() {
        return Value.parse(this.bought);
    }

    /** The book's purchase retries per 60 s, as a number. */
    Value retriesValue() {
        return Value.parse(this.retries);
    }

    /** The book's average wait per purchase in milliseconds, as a number. */
    Value averageWaitValue() {
        return Value.parse(this.averageWait);
    }

    static BookTable of(int listers, int buyers, String strategy) {
        return ROWS.stream()
                .filter(row -> row.listers == listers && row.buyers == buyers && row.strategy.equals(strategy))
                .findFirst()
                .orElseThrow();
    }
}
