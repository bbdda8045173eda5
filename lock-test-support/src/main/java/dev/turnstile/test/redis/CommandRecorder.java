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
        List<String> commands = new ArrayList<>();
        for (List<String> call : clientCalls()) {
            commands.add(call.get(0).toUpperCase(Locale.ROOT));
        }
        return commands;
    }

    /**
     * Returns the calls clients sent so far, each as its words: the command's name as sent, then its
     * arguments (for {@code EVALSHA}: the digest, the number of keys, the keys, the arguments); the
     * commands Lua scripts run are left out. Like {@link #clientCommands()}, it first waits for
     * MONITOR to report a marker.
     */
    public List<List<String>> clientCalls() {
        if (!markerSeen(Duration.ofSeconds(5))) {
            throw new IllegalStateException("MONITOR did not report the marker within 5s");
        }
        List<List<String>> calls = new ArrayList<>();
        synchronized (this.lines) {
            for (String line : this.lines) {
                if (line.contains(MARK)) {
                    break;
                }
                if (!line.contains(" lua] ")) {
                    calls.add(words(line));
                }
            }
            this.lines.removeIf(line -> line.contains(MARK));
        }
        return calls;
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

    /** A MONITOR line's quoted words, unescaped: {@code 123.4 [0 127.0.0.1:5000] "SET" "k" "v"}. */
    private static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        int at = line.indexOf("] \"");
        if (at < 0) {
            return List.of(line);
        }
        StringBuilder word = null;
        for (int i = at + 2; i < line.length(); i++) {
            char c = line.charAt(i);
            if (word == null) {
                if (c == '"') {
                    word = new StringBuilder();
                }
            } else if (c == '\\' && i + 1 < line.length()) {
                word.append(line.charAt(++i));
            } else if (c == '"') {
                words.add(word.toString());
                word = null;
            } else {
                word.append(c);
            }
        }
        return words;
    }
}
