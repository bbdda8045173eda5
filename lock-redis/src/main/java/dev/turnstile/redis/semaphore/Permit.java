package dev.turnstile.redis.semaphore;

import dev.turnstile.redis.Lease;

/**
 * One permit of a {@link RedisSemaphore}: a {@link Lease} on one slot. {@link #extend} is the
 * "refresh" of a long-lived holder (a streaming connection keeping its slot for hours); a permit
 * acquired with no lease time is refreshed by the watchdog. A permit that is not refreshed expires
 * and its slot returns to the pool, also when its holder crashed.
 */
public interface Permit extends Lease {

    /**
     * Returns this permit's id in Redis ({@link RedisSemaphore#holders()}), unique among the
     * permits held at once across every semaphore and process. A permit of an unfair semaphore
     * passed from one thread of a process to the next keeps its id: two holds one after the other
     * may share it; the fencing token tells them apart.
     */
    String id();
}
