package dev.turnstile.benchmarks;

import java.util.function.IntFunction;

/**
 * One measured workload: {@code threads} threads each running {@code operation} in a loop, where
 * one call is one acquisition (acquire, trivial work, release).
 *
 * @param group the table the row belongs to, e.g. "1 thread, uncontended"
 * @param contender what is measured, e.g. "Turnstile RedisLock"
 * @param threads the number of threads
 * @param operation makes the per-thread operation, given the thread index
 */
record Scenario(String group, String contender, int threads, IntFunction<Operation> operation) {

    /** One acquisition; returns whether the grant happened (false counts as a failed try). */
    @FunctionalInterface
    interface Operation {
        boolean run() throws Exception;
    }
}
