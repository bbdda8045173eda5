/** Locks: one name or several, all-or-nothing, with leases, watchdog renewal and fencing tokens. */
@NullMarked
package dev.turnstile.redis.lock;

import org.jspecify.annotations.NullMarked;
