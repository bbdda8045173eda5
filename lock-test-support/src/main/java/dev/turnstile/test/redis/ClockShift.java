package dev.turnstile.test.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * A small {@code LD_PRELOAD} library that shifts a {@code redis-server}'s wall clock ({@code
 * gettimeofday}, {@code time}, {@code clock_gettime} on the realtime clocks) by an offset read from
 * a file, which may change while the server runs: Redis's {@code TIME}, the script clock and key
 * expiry follow it; its monotonic clock does not. Built from its C source with {@code gcc} into
 * {@code target/clock-shift/} the first time a test needs it; a test that needs it is skipped,
 * saying why, where {@code gcc} is missing. (Debian's libfaketime recurses inside redis-server's
 * allocator; this library calls the kernel directly and allocates nothing.) See {@link
 * RedisServer.Builder#shiftableClock()}.
 */
public final class ClockShift {

    /** The variable naming the file that holds the offset, in microseconds. */
    static final String FILE_VARIABLE = "TURNSTILE_CLOCK_FILE";

    private static @Nullable Path library;
    private static @Nullable String unavailable;

    private ClockShift() {}

    /**
     * Returns the built library, building it first if this JVM has not.
     *
     * @throws org.opentest4j.TestAbortedException when it cannot be built (no {@code gcc}): the
     *     calling test is skipped with the reason
     */
    public static synchronized Path library() {
        isAvailable();
        Assumptions.assumeTrue(
                library != null,
                () -> "Skipped: the clock-shifting library for redis-server could not be built (" + unavailable
                        + "); install gcc (.ci/run does)");
        return library;
    }

    /** Returns whether the library is built or can be (building it first if this JVM has not). */
    public static synchronized boolean isAvailable() {
        if (library == null && unavailable == null) {
            try {
                library = build();
            } catch (IOException | RuntimeException e) {
                unavailable = e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                unavailable = "interrupted while building it";
            }
        }
        return library != null;
    }

    /** Writes {@code offset} (whole microseconds) where a server started with {@code file} reads it. */
    static void write(Path file, Duration offset) {
        long micros = TimeUnit.NANOSECONDS.toMicros(offset.toNanos());
        try {
            Path next = file.resolveSibling(file.getFileName() + ".next");
            Files.writeString(next, Long.toString(micros));
            Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write the clock offset to " + file, e);
        }
    }

    private static Path build() throws IOException, InterruptedException {
        Path directory = Path.of("target", "clock-shift").toAbsolutePath();
        Files.createDirectories(directory);
        Path source = directory.resolve("clock_shift.c");
        try (InputStream in = ClockShift.class.getResourceAsStream("clock_shift.c")) {
            if (in == null) {
                throw new IllegalStateException("clock_shift.c is not on the class path");
            }
            Files.copy(in, source, StandardCopyOption.REPLACE_EXISTING);
        }
        // Built under a name of its own, then moved: several JVMs may build it at once.
        Path built = Files.createTempFile(directory, "clock-shift-", ".so");
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-shared", "-fPIC", "-O2", "-o", built.toString(), source.toString())
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException noGcc) {
            Files.deleteIfExists(built);
            throw new IOException("gcc could not be run: " + noGcc.getMessage(), noGcc);
        }
        String output = new String(gcc.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
            Files.deleteIfExists(built);
            throw new IOException("gcc failed: " + output.strip());
        }
        Path target = directory.resolve("libturnstile-clock-shift.so");
        Files.move(built, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return target;
    }
}
