/** Counting semaphores: at most N leased permits at once, fail-fast or waiting, fair or not. */
@NullMarked
package dev.turnstile.redis.semaphore;

import org.jspecify.annotations.NullMarked;
