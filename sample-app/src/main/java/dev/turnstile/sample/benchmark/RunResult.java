package dev.turnstile.sample.benchmark;

/**
 * What one run of the simulation measured.
 *
 * @param listers listing workers
 * @param buyers buying workers
 * @param strategy the strategy
 * @param seconds how long it ran
 * @param listed items listed
 * @param bought items bought
 * @param retries purchase retries (WATCH transactions thrown away)
 * @param averageWaitMillis average time of one purchase call, in milliseconds
 */
public record RunResult(
        int listers,
        int buyers,
        String strategy,
        double seconds,
        long listed,
        long bought,
        long retries,
        double averageWaitMillis) {

    /** Scales a count to the book's 60 s. */
    public long per60s(long count) {
        return Math.round(count * 60 / this.seconds);
    }
}
