package dev.turnstile.test.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.exceptions.JedisException;

/**
 * What every {@code redis-server} process started here has in common, whoever owns it (a test's
 * {@link RedisServer}, or an application that runs a server of its own): a free loopback port that
 * is never 6379, a command line that binds loopback only and keeps nothing on disk unless asked,
 * a directory holding its {@code redis.log}, and the wait until it answers PING as the very process
 * just started.
 */
public final class RedisProcesses {

    /** How long a server may take to answer PING after it was started. */
    public static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(15);

    /** The name of the file in a server's directory that takes its standard output and error. */
    public static final String LOG = "redis.log";

    /** The lowest port a server is placed on: above the registered services most machines run. */
    private static final int FIRST_PORT = 10_000;

    private RedisProcesses() {}

    /**
     * Returns the command line of a server listening on {@code 127.0.0.1:port}, in the foreground,
     * with {@code directory} as its working directory, no RDB snapshots, and an append-only file
     * only if {@code appendOnly}.
     */
    public static List<String> command(Path binary, String port, Path directory, boolean appendOnly) {
        return new ArrayList<>(List.of(
                binary.toString(),
                "--port",
                port,
                "--bind",
                "127.0.0.1",
                "--protected-mode",
                "no",
                "--daemonize",
                "no",
                "--dir",
                directory.toString(),
                "--save",
                "",
                "--appendonly",
                appendOnly ? "yes" : "no"));
    }

    /**
     * Waits until the server at {@code address} answers PING and its {@code INFO server} names
     * {@code pid} as its process id: the answer must come from the server just started, not from one
     * another process started on the same port a moment earlier (whose data must not be touched).
     * Nothing is stopped here; on failure the caller stops {@code process}.
     *
     * @param process the process started (the server, or a script that runs it); its death ends the wait
     * @param pid the server's process id
     * @param config how to connect (timeouts, TLS)
     * @param directory the server's directory, whose {@value #LOG} an exception quotes
     * @param exitHint words added to the message when the process exits at startup, or ""
     * @throws PortTakenException if another process answered on the port, or the server could not bind it
     * @throws IllegalStateException if the process exited at startup or did not answer within {@link
     *     #STARTUP_TIMEOUT}; the message quotes its log
     */
    public static void awaitOwnServer(
            Process process, long pid, HostAndPort address, JedisClientConfig config, Path directory, String exitHint) {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (true) {
            if (!process.isAlive()) {
                String log = log(directory);
                if (log.contains("Address already in use")) {
                    throw new PortTakenException(address.getPort(), "its port was taken meanwhile");
                }
                throw new IllegalStateException(
                        "redis-server on port " + address.getPort() + " exited at startup" + exitHint + ":\n" + log);
            }
            try (Jedis jedis = new Jedis(address, config)) {
                if ("PONG".equals(jedis.ping())) {
                    String expected = "process_id:" + pid;
                    if (jedis.info("server").lines().map(String::strip).noneMatch(expected::equals)) {
                        throw new PortTakenException(address.getPort(), "another process answered on it");
                    }
                    return;
                }
            } catch (JedisException notYet) {
                // still starting or loading its data
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("redis-server on port " + address.getPort()
                        + " did not answer PING within " + STARTUP_TIMEOUT.toSeconds() + " s:\n" + log(directory));
            }
            Polling.pause();
        }
    }

    /** The port chosen for a new server was taken by another process before the server bound it. */
    public static final class PortTakenException extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        PortTakenException(int port, String why) {
            super("redis-server could not use port " + port + ": " + why);
        }
    }

    /** Returns the server's log in {@code directory}, or a line saying there is none. */
    public static String log(Path directory) {
        try {
            return Files.readString(directory.resolve(LOG), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Deletes {@code directory} and everything in it, as far as it can; a folder left behind is harmless. */
    public static void deleteDirectory(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException ignored) {
            // deleted meanwhile, or a temp folder left behind
        }
    }

    /**
     * Returns a loopback port that is free now, is not 6379, and lies below the range the kernel
     * hands out as the local port of outgoing connections. A server keeps its port across {@link
     * RedisServer#restart()}; a port in that range can be taken, while the server is down, by any
     * client connection of the machine (its own tests' included), and the restart then fails. Where
     * that range leaves fewer than 1,000 ports above 10000 (it starts below 11000), the kernel picks
     * the port, inside the range. Another process may still take the port before a server binds it:
     * {@link #awaitOwnServer} tells.
     */
    public static int freePort() {
        return freePort(0);
    }

    /**
     * Returns a free loopback port as {@link #freePort()} does, such that {@code port + offset} is
     * free and below the outgoing connections' range too (a cluster node's bus port is its port plus
     * 10000). Falls back to a port the kernel picks if the range leaves too little room below it.
     */
    static int freePort(int offset) {
        int below = firstEphemeralPort() - offset;
        if (below - FIRST_PORT >= 1_000) {
            for (int attempt = 0; attempt < 200; attempt++) {
                int port = ThreadLocalRandom.current().nextInt(FIRST_PORT, below);
                if (port != 6379
                        && port + offset != 6379
                        && bindable(port)
                        && (offset == 0 || bindable(port + offset))) {
                    return port;
                }
            }
        }
        for (int attempt = 0; attempt < 50; attempt++) {
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(false);
                socket.bind(new InetSocketAddress("127.0.0.1", 0));
                int port = socket.getLocalPort();
                if (port != 6379 && port + offset <= 65_535 && (offset == 0 || bindable(port + offset))) {
                    return port;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("No free loopback port found");
    }

    /**
     * Returns the first port of the range the kernel picks outgoing connections' local ports from:
     * Linux's {@code net.ipv4.ip_local_port_range}, or 32768 (Linux's default, below the 49152 of
     * other systems) where it cannot be read.
     */
    static int firstEphemeralPort() {
        try {
            // Files.readString reads a /proc file, whose size shows as 0, only in part
            String range = Files.readAllLines(
                            Path.of("/proc/sys/net/ipv4/ip_local_port_range"), StandardCharsets.US_ASCII)
                    .get(0);
            return Integer.parseInt(range.strip().split("\\s+")[0]);
        } catch (IOException | RuntimeException unreadable) {
            return 32_768;
        }
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
