/**
 * Internals shared by locks and semaphores: Lua scripts, key layout, release signals, the
 * watchdog and the lease state machine. Public only because Java has no "friend" packages; not an
 * API, and it may change in any release.
 */
@NullMarked
package dev.turnstile.redis.support;

import org.jspecify.annotations.NullMarked;
