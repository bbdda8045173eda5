package dev.turnstile.redis.internal;

/**
 * A Redis grant passed to the next thread of this process.
 *
 * @param cohort the grant
 * @param fencingToken the new holder's token, from the cohort's block
 * @param keyDeadlineNanos the latest moment the key is known to live in Redis ({@link
 *     System#nanoTime()}): the previous holder's deadline
 * @param handedNanos when the grant was passed
 */
record HandOff(Cohort cohort, long fencingToken, long keyDeadlineNanos, long handedNanos) {}
