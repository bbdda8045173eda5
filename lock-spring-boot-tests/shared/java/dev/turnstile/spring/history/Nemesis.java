package dev.turnstile.spring.history;

import dev.turnstile.redis.LockFactory;
import dev.turnstile.test.redis.PartitionProxy;
import dev.turnstile.test.redis.RedisServer;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The faults of the starter's history runs, applied until a run's end: Redis paused (SIGSTOP of
 * the server), a node cut off by a {@link PartitionProxy}, and the operator's forced release. Each
 * fault comes after a random gap (seeded, so a run's schedule repeats); {@link #applied()} counts
 * them. Not thread-safe: one nemesis per run, on one thread.
 */
public final class Nemesis {

    private final Random random = new Random(42);
    private int applied;

    /** Returns how many faults were applied. */
    public int applied() {
        return this.applied;
    }

    /** Pauses {@code server} for {@code length} after every gap of about {@code gapMillis}, until {@code endNanos}. */
    public void pauseRedis(RedisServer server, long endNanos, long gapMillis, Duration length) {
        repeat(endNanos, gapMillis, () -> {
            server.pause();
            try {
                park(length.toNanos());
            } finally {
                server.resume();
            }
        });
    }

    /** Cuts {@code proxy} for {@code length} after every gap of about {@code gapMillis}, until {@code endNanos}. */
    public void partition(PartitionProxy proxy, long endNanos, long gapMillis, Duration length) {
        repeat(endNanos, gapMillis, () -> {
            proxy.partition();
            try {
                park(length.toNanos());
            } finally {
                proxy.heal();
            }
        });
    }

    /** Force-releases {@code name} every {@code everyMillis} until {@code endNanos}; counts the releases that took a holder's lock. */
    public void forceRelease(LockFactory operator, String name, long endNanos, long everyMillis) {
        while (endNanos - System.nanoTime() > 0) {
            park(TimeUnit.MILLISECONDS.toNanos(everyMillis));
            this.applied += operator.lock(name).forceRelease().size();
        }
    }

    /** Waits until {@code endNanos} without a fault. */
    public void idle(long endNanos) {
        park(endNanos - System.nanoTime());
    }

    private void repeat(long endNanos, long gapMillis, Runnable fault) {
        while (endNanos - System.nanoTime() > TimeUnit.MILLISECONDS.toNanos(gapMillis)) {
            park(TimeUnit.MILLISECONDS.toNanos(gapMillis / 2 + this.random.nextInt((int) gapMillis)));
            if (endNanos - System.nanoTime() <= 0) {
                return;
            }
            fault.run();
            this.applied++;
        }
    }

    /** Parks for {@code nanos}, however often the thread wakes early. */
    public static void park(long nanos) {
        long end = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }
}
