package dev.turnstile.redis;

/**
 * Whether a thread queued behind another thread of this process for the same lock name waits
 * awake for a turn that is due soon, or parks at once.
 *
 * <p>Waiting awake ({@link Thread#yield()} between looks, for at most 200 µs, and only while the
 * turn is expected within 200 µs) saves the wake-up a parked thread needs when the lock is passed
 * on, which on a hot key costs more than the hold itself. Its price is CPU: a waiter keeps a CPU
 * that nothing else wants busy, and under a CPU quota (a container's CPU limit) that time counts
 * against the quota, so awake waiters on otherwise idle cores can use it up and get the whole
 * process throttled. Neither mode changes who gets the lock or in what order; semaphore waiters
 * always park.
 */
public enum AwakeWaiting {
    /**
     * Waits awake unless this process runs under a CPU quota smaller than the online CPUs it may run
     * on (a cgroup quota on its own cgroup or a parent's, as a container's CPU limit or a systemd
     * {@code CPUQuota} sets; where no cgroup file can be read, a runtime processor count below those
     * CPUs, so {@code -XX:ActiveProcessorCount} counts then) or has one processor. Decided once per
     * process, when first needed. The default.
     */
    AUTO,
    /** Waits awake also under a CPU quota; still never with one processor, where it only delays the holder. */
    ALWAYS,
    /** Always parks: every hand-off to a queued thread waits for its wake-up. */
    NEVER
}
