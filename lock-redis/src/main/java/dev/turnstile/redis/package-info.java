/**
 * Distributed locks and counting semaphores held in Redis.
 *
 * <p>Start at {@link dev.turnstile.redis.Turnstile}: it hands out {@link
 * dev.turnstile.redis.NamedLock locks} and {@link dev.turnstile.redis.semaphore.RedisSemaphore
 * semaphores}, whose grants are {@link dev.turnstile.redis.Lease leases}: always time-limited,
 * renewed by a watchdog when no lease time is given, owner-checked on release and extension, and
 * carrying a fencing token.
 */
@NullMarked
package dev.turnstile.redis;

import org.jspecify.annotations.NullMarked;
