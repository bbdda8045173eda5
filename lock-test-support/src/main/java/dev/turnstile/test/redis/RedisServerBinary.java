package dev.turnstile.test.redis;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;

/**
 * Finds a {@code redis-server} executable, in this order: the {@code REDIS_SERVER} environment
 * variable (a path, e.g. {@code /usr/bin/valkey-server}, or {@code bundled} for the binary below),
 * {@code redis-server} on the {@code PATH}, then the binary bundled in the {@code
 * com.github.codemonstur:embedded-redis} jar (Redis 6.2.11 on Linux x86-64), extracted once per JVM
 * to a temporary folder.
 */
public final class RedisServerBinary {

    /** The value of {@code REDIS_SERVER} that picks the embedded-redis jar's binary even where a server is on the PATH. */
    public static final String BUNDLED = "bundled";

    private static volatile @org.jspecify.annotations.Nullable Path resolved;

    private RedisServerBinary() {}

    /**
     * Returns the path of the {@code redis-server} to run.
     *
     * @throws IllegalStateException if no binary is found; the message says how to provide one
     */
    public static Path locate() {
        Path path = resolved;
        if (path == null) {
            synchronized (RedisServerBinary.class) {
                path = resolved;
                if (path == null) {
                    path = fromEnvironment()
                            .or(RedisServerBinary::fromPath)
                            .or(RedisServerBinary::fromEmbeddedJar)
                            .orElseThrow(() -> new IllegalStateException(
                                    "No redis-server found: set REDIS_SERVER to its path, put redis-server on the PATH,"
                                            + " or add com.github.codemonstur:embedded-redis to the test classpath"));
                    resolved = path;
                }
            }
        }
        return path;
    }

    private static Optional<Path> fromEnvironment() {
        String value = System.getenv("REDIS_SERVER");
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        if (value.strip().equals(BUNDLED)) {
            return Optional.of(fromEmbeddedJar()
                    .orElseThrow(() -> new IllegalStateException("REDIS_SERVER is set to '" + BUNDLED
                            + "', but the embedded-redis jar is not on the test classpath or has no binary for "
                            + System.getProperty("os.name") + " " + System.getProperty("os.arch"))));
        }
        Path path = Path.of(value);
        if (!Files.isExecutable(path)) {
            throw new IllegalStateException("REDIS_SERVER is set to '" + value
                    + "', which is not an executable file: give the path of a redis-server or valkey-server,"
                    + " or '" + BUNDLED + "' for the embedded-redis jar's");
        }
        return Optional.of(path);
    }

    private static Optional<Path> fromPath() {
        String pathVariable = System.getenv("PATH");
        if (pathVariable == null) {
            return Optional.empty();
        }
        for (String dir : pathVariable.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, "redis-server");
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static Optional<Path> fromEmbeddedJar() {
        String resource = embeddedResourceName();
        if (resource == null) {
            return Optional.empty();
        }
        try (InputStream in = RedisServerBinary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                return Optional.empty();
            }
            Path dir = Files.createTempDirectory("turnstile-redis-bin");
            Path target = dir.resolve("redis-server");
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            if (!target.toFile().setExecutable(true)) {
                throw new IOException("cannot make " + target + " executable");
            }
            dir.toFile().deleteOnExit();
            target.toFile().deleteOnExit();
            return Optional.of(target);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not extract the embedded redis-server " + resource, e);
        }
    }

    private static @org.jspecify.annotations.Nullable String embeddedResourceName() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        boolean arm = arch.contains("aarch64") || arch.contains("arm");
        if (os.contains("linux")) {
            return arm ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64";
        }
        if (os.contains("mac")) {
            return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
        }
        return null;
    }
}
