package dev.turnstile.redis;

import dev.turnstile.redis.internal.Durations;
import java.time.Duration;

/** The wording that the refusals of a lock's and a semaphore's acquire share. */
final class WaitMessages {

    private WaitMessages() {}

    /**
     * {@code Interrupted after waiting 5s for lock 'item:42'; the lock was not taken}.
     *
     * @param waitedFor what the thread waited for
     * @param outcome what that means for the caller
     */
    static String interrupted(Duration waited, String waitedFor, String outcome) {
        return "Interrupted after waiting " + Durations.format(waited) + " for " + waitedFor + "; " + outcome;
    }
}
