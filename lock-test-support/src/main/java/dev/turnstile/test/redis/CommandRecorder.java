package dev.turnstile.test.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisMonitor;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Records the commands clients send to one server, through {@code MONITOR}: one entry per round
 * trip a client made, not counting the commands Lua scripts run inside the server (which {@code
 * INFO commandstats} does count). For tests that assert "exactly one Redis call".
 *
 * <pre>{@code
 * try (CommandRecorder recorder = CommandRecorder.start(server)) {
 *     semaphore.tryAcquire();
 *     assertThat(recorder.clientCommands()).containsExactly("EVALSHA");
 * }
 * }</pre>
 */
public final class CommandRecorder implements AutoCloseable {

    private static final String MARK = "command-recorder-mark";

    private final Jedis connection;
    /**
     * Sends the markers. Opened before MONITOR starts, so what Jedis sends on a new connection
     * ({@code CLIENT SETINFO}, which Redis 7.2+ and Valkey report) is never recorded.
     */
    private final Jedis marker;

    private final List<String> lines = new ArrayList<>();
    private final Thread thread;

    private CommandRecorder(RedisServer server) {
        this.connection = server.connect();
        this.marker = server.connect();
        this.marker.ping();
        this.thread = new Thread(
                () -> {
                    try {
                        this.connection.monitor(new JedisMonitor() {
                            @Override
                            public void onCommand(String command) {
                                synchronized (CommandRecorder.this.lines) {
                                    CommandRecorder.this.lines.add(command);
                                    CommandRecorder.this.lines.notifyAll();
                                }
                            }
                        });
                    } catch (JedisException closed) {
                        // close() ended the connection
                    }
                },
                "command-recorder");
        this.thread.setDaemon(true);
        this.thread.start();
        // MONITOR is active once it reports a marker; then forget everything before it.
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!markerSeen(Duration.ofMillis(100))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("MONITOR did not start within 5s on " + server);
            }
        }
        synchronized (this.lines) {
            this.lines.clear();
        }
    }

    /** Starts recording the commands sent to {@code server}; returns once MONITOR is active. */
    public static CommandRecorder start(RedisServer server) {
        return new CommandRecorder(server);
    }

    /**
     * Returns the commands clients sent so far (upper-case names, e.g. {@code EVALSHA}), without
     * those run inside Lua scripts. It first sends a marker and waits for MONITOR to report it, so
     * every command the server ran before this call is included.
     */
    public List<String> clientCommands() {
        if (!markerSeen(Duration.ofSeconds(5))) {
            throw new IllegalStateException("MONITOR did not report the marker within 5s");
        }
        List<String> commands = new ArrayList<>();
        synchronized (this.lines) {
            for (String line : this.lines) {
                if (line.contains(MARK)) {
                    break;
                }
                if (!line.contains(" lua] ")) {
                    commands.add(commandName(line));
                }
            }
            this.lines.removeIf(line -> line.contains(MARK));
        }
        return commands;
    }

    private boolean markerSeen(Duration timeout) {
        synchronized (this.marker) {
            this.marker.echo(MARK);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this.lines) {
            while (this.lines.stream().noneMatch(line -> line.contains(MARK))) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
                try {
                    this.lines.wait(Math.max(1, remaining / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            return true;
        }
    }

    @Override
    public void close() {
        this.marker.close();
        try {
            this.connection.getClient().close();
        } catch (RuntimeException ignored) {
            // already closed
        }
        try {
            this.thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String commandName(String line) {
        int start = line.indexOf("] \"");
        if (start < 0) {
            return line;
        }
        int end = line.indexOf('"', start + 3);
        return line.substring(start + 3, end).toUpperCase(Locale.ROOT);
    }
}
