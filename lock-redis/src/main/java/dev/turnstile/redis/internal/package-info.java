/**
 * The implementation behind the API: locks, semaphores, Redlock, the lease state machine, Lua
 * scripts, key layout, release signals and the watchdog. Not exported by the module {@code
 * dev.turnstile.redis}; not an API, and it may change in any release.
 */
@NullMarked
package dev.turnstile.redis.internal;

import org.jspecify.annotations.NullMarked;
