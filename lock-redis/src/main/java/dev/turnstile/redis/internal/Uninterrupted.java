package dev.turnstile.redis.internal;

import java.util.function.Supplier;

/**
 * Runs a call to Redis that an interrupt must not cut short: an acquire's try, and every call that
 * frees what an acquire or a lease may hold (a release, leaving a fair queue). What an interrupt can
 * cut in such a call is a wait of the client's: for a pooled connection (Jedis's pool waits
 * interruptibly, a socket read does not), or a cluster client's pause before it tries the call
 * again. The call then fails only because of the interrupt, before it is sent (or before the client
 * sends it again): a clean-up that fails so leaves a grant held in Redis until its lease expires,
 * and an acquire hands its caller the pool's failure instead of an interrupted acquire, without its
 * interrupt flag. So the call runs with the thread's interrupt flag cleared, a call that such a
 * wait's interrupt failed is made again, and the flag is set again afterwards if the thread was
 * interrupted before or during the call: the caller acts on it (an acquire throws its interrupted
 * exception) once the call has returned.
 *
 * <p>An interrupted thread waits for a connection like any other: as long as the pool's {@code
 * maxWait} (unbounded by default) while the calls holding the connections run, each bounded by the
 * client's socket timeout.
 */
final class Uninterrupted {

    private Uninterrupted() {}

    /** Runs {@code call} as the class describes and returns its result. */
    static <T> T call(Supplier<T> call) {
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                try {
                    return call.get();
                } catch (RuntimeException e) {
                    if (!waitInterrupted(e)) {
                        throw e;
                    }
                    // Failed by the interrupt alone, before the client sent it: make it again.
                    interrupted = true;
                    Thread.interrupted();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Runs {@code call} as the class describes. */
    static void run(Runnable call) {
        call(() -> {
            call.run();
            return null;
        });
    }

    /**
     * Whether {@code failure} is a call failed by an interrupt of one of the client's waits (e.g.
     * Jedis's "Could not get a resource from the pool" caused by an {@link InterruptedException}),
     * translated into Turnstile's exception or not.
     */
    static boolean waitInterrupted(Throwable failure) {
        Throwable cause = failure;
        for (int depth = 0; cause != null && depth < 10; depth++, cause = cause.getCause()) {
            if (cause instanceof InterruptedException) {
                return true;
            }
        }
        return false;
    }
}
