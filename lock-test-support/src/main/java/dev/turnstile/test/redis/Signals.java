package dev.turnstile.test.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/** Sends POSIX signals to processes with {@code kill}, which Java 17 cannot do by itself. */
final class Signals {

    private Signals() {}

    /** Sends {@code signal} (e.g. {@code "STOP"}) to {@code pid}; fails if {@code kill} does. */
    static void send(String signal, long pid) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while sending SIG" + signal + " to " + pid, e);
        }
    }

    /** Sends {@code signal}, ignoring a process that is already gone. */
    static void sendQuietly(String signal, long pid) {
        try {
            send(signal, pid);
        } catch (RuntimeException ignored) {
            // already gone
        }
    }
}
