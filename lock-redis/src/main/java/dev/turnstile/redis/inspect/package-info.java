/** Looking into any Redis for locks: held locks, semaphores, and lock-like keys that never expire. */
@NullMarked
package dev.turnstile.redis.inspect;

import org.jspecify.annotations.NullMarked;
