package dev.turnstile.benchmarks;

import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * One measured workload: {@code threads} threads each acquiring and releasing in a loop.
 *
 * @param group the table the row belongs to, e.g. "1 thread, uncontended"
 * @param contender what is measured, e.g. "Turnstile RedisLock"
 * @param threads the number of threads
 * @param contended whether all threads want one lock (hand-off latency is measured then)
 * @param contenders makes the per-thread contender, given the thread index
 */
record Scenario(String group, String contender, int threads, boolean contended, IntFunction<Contender> contenders) {

    /** One thread's view of a lock or semaphore. */
    interface Contender {

        /** Acquires (waiting as the library does); returns a handle, or null if not acquired. */
        @Nullable
        Object acquire() throws Exception;

        /** Releases what {@link #acquire()} returned. */
        void release(Object handle) throws Exception;
    }
}
