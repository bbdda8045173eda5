/**
 * Redlock: one lock over N independent Redis masters, granted by a majority. The locks of one
 * Redis deployment come from {@link dev.turnstile.redis.Turnstile#lock}.
 */
@NullMarked
package dev.turnstile.redis.lock;

import org.jspecify.annotations.NullMarked;
