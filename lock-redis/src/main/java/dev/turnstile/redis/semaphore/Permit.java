package dev.turnstile.redis.semaphore;

import dev.turnstile.redis.Lease;

/**
 * One permit of a {@link RedisSemaphore}: a {@link Lease} on one slot. {@link #extend} is the
 * "refresh" of a long-lived holder (a streaming connection keeping its slot for hours); a permit
 * acquired with no lease time is refreshed by the watchdog. A permit that is not refreshed expires
 * and its slot returns to the pool, also when its holder crashed.
 */
public interface Permit extends Lease {

    /** Returns this permit's id, unique across every semaphore and process. */
    String id();
}
