package dev.turnstile.sample;

import dev.turnstile.test.redis.RedisProcesses;
import dev.turnstile.test.redis.RedisServerBinary;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;

/**
 * The {@code redis-server} the sample runs for itself: on a free loopback port (never 6379), in a
 * directory of its own under the system's temporary directory, keeping nothing on disk.
 *
 * <p><b>It never outlives the application</b>, however the application ends, {@code kill -9}
 * included. The server is started by a small {@code sh} script, its guard, whose standard input is
 * a pipe that only this JVM writes to (and never does). When the JVM exits, normally or not, the
 * kernel closes the pipe; the guard reads end-of-file, kills the server with SIGKILL and deletes
 * its directory. Nothing polls, and the JVM's pid is not needed: the kernel tells. (Where there is
 * no {@code /bin/sh}, the server is started directly and only {@link #close()} and the shutdown
 * hook stop it.)
 *
 * <p><b>It is noticed when it dies.</b> The guard exits when the server does, and this class hears
 * it: with {@link #restarting} true it logs one warning, starts a new server on the same port (its
 * data is gone) and tells the {@link #onRestart} listeners; a server that dies more than {@value
 * #MAX_RESTARTS} times is left down, with one error in the log and in {@link #status()} that says to
 * restart the sample. A server that exits while the JVM is shutting down is not restarted.
 *
 * <p>Thread-safe.
 */
public final class OwnRedisServer implements AutoCloseable {

    private static final Log log = LogFactory.getLog(OwnRedisServer.class);

    /** How many times a server that died is started again before the sample gives up. */
    static final int MAX_RESTARTS = 5;

    /** How long after the server's exit this class looks whether the JVM is shutting down. */
    private static final Duration SETTLE = Duration.ofMillis(500);

    /**
     * The guard: {@code $1} is the directory, the rest the server's command line. It prints the
     * server's pid, keeps a copy of its standard input (the pipe) on fd 3 for a watcher that kills
     * the server when the pipe reaches end-of-file, waits for the server, then deletes the
     * directory and exits with the server's status. (An asynchronous command's standard input is
     * /dev/null before its redirections, hence fd 3.)
     */
    static final String GUARD = String.join(
            "\n",
            "dir=$1; shift",
            "exec 3<&0",
            "\"$@\" </dev/null >\"$dir/redis.log\" 2>&1 &",
            "server=$!",
            "echo \"$server\"",
            "(while read -r _; do :; done; kill -9 \"$server\" 2>/dev/null) <&3 &",
            "watcher=$!",
            "exec 3<&-",
            "wait \"$server\"",
            "status=$?",
            "kill \"$watcher\" 2>/dev/null",
            "rm -rf \"$dir\"",
            "exit \"$status\"");

    private final Path binary = RedisServerBinary.locate();
    private final int port;
    private final boolean restarting;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "own-redis-watch");
        thread.setDaemon(true);
        return thread;
    });
    private @Nullable Process process;
    private long pid;
    private Path directory;
    private volatile boolean closing;
    private int restarts;
    private @Nullable Instant lastExit;
    private @Nullable String failure;

    private OwnRedisServer(int port, boolean restarting) {
        this.port = port;
        this.restarting = restarting;
    }

    /**
     * Starts a server on a free port and waits until it answers PING.
     *
     * @param restarting whether a server that dies is started again (the web application), or left
     *     down (a command's run, whose results it would falsify)
     * @throws IllegalStateException if it could not be started; the message says why
     */
    public static OwnRedisServer start(boolean restarting) {
        return start(restarting, RedisProcesses::freePort);
    }

    /** Like {@link #start(boolean)}, with the free ports taken from {@code ports}. */
    static OwnRedisServer start(boolean restarting, java.util.function.IntSupplier ports) {
        for (int attempt = 1; ; attempt++) {
            OwnRedisServer server = new OwnRedisServer(ports.getAsInt(), restarting);
            try {
                server.launch();
            } catch (RedisProcesses.PortTakenException taken) {
                if (attempt == 3) {
                    throw new IllegalStateException(taken.getMessage() + "; start the sample again.", taken);
                }
                continue;
            }
            Runtime.getRuntime().addShutdownHook(new Thread(server::close, "own-redis-stop"));
            return server;
        }
    }

    /** Returns the port; a restarted server keeps it. */
    public int port() {
        return this.port;
    }

    /** Returns the running server's process id, or 0 when none runs. */
    public synchronized long pid() {
        return this.process == null ? 0 : this.pid;
    }

    /** Returns the running server's directory (its log is {@code redis.log} there). */
    public synchronized Path directory() {
        return this.directory;
    }

    /** Registers {@code listener} to run (on a watcher thread) after each restart, e.g. to reload data. */
    public void onRestart(Runnable listener) {
        this.listeners.add(listener);
    }

    /**
     * What happened to the server.
     *
     * @param port its port
     * @param pid the running server's pid, 0 when none runs
     * @param restarts how many times it died and was started again
     * @param lastExit when it last died, or null
     * @param failure why it is down for good (and what to do), or null
     */
    public record Status(
            int port,
            long pid,
            int restarts,
            @Nullable Instant lastExit,
            @Nullable String failure) {}

    /** Returns what happened to the server so far. */
    public synchronized Status status() {
        return new Status(this.port, pid(), this.restarts, this.lastExit, this.failure);
    }

    /** Stops the server (SIGKILL) and deletes its directory; it is not restarted. Idempotent. */
    @Override
    public void close() {
        this.closing = true;
        this.watcher.shutdownNow();
        Process stopping;
        synchronized (this) {
            stopping = this.process;
            this.process = null;
        }
        if (stopping != null) {
            stop(stopping);
        }
        deleteDirectory();
    }

    private synchronized void launch() {
        try {
            this.directory = Files.createTempDirectory("turnstile-sample-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create a directory for the sample's redis-server", e);
        }
        List<String> server = RedisProcesses.command(this.binary, Integer.toString(this.port), this.directory, false);
        Process started;
        try {
            if (Files.isExecutable(Path.of("/bin/sh"))) {
                List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", GUARD, "redis-guard"));
                command.add(this.directory.toString());
                command.addAll(server);
                started = new ProcessBuilder(command)
                        .redirectError(ProcessBuilder.Redirect.DISCARD)
                        .start();
                this.pid = readPid(started);
            } else {
                started = new ProcessBuilder(server)
                        .redirectErrorStream(true)
                        .redirectOutput(
                                this.directory.resolve(RedisProcesses.LOG).toFile())
                        .start();
                this.pid = started.pid();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start " + this.binary, e);
        }
        this.process = started;
        awaitReady(started);
        started.onExit().thenRun(() -> exited(started));
    }

    private static long readPid(Process guard) throws IOException {
        BufferedReader output =
                new BufferedReader(new InputStreamReader(guard.getInputStream(), StandardCharsets.US_ASCII));
        String line = output.readLine();
        if (line == null || !line.trim().matches("\\d+")) {
            throw new IOException("the redis-server guard did not report the server's pid (it printed " + line + ")");
        }
        return Long.parseLong(line.trim());
    }

    private void awaitReady(Process started) {
        try {
            RedisProcesses.awaitOwnServer(
                    started,
                    this.pid,
                    new HostAndPort("127.0.0.1", this.port),
                    DefaultJedisClientConfig.builder().timeoutMillis(500).build(),
                    this.directory,
                    "");
        } catch (RuntimeException failed) {
            stop(started);
            throw failed;
        }
    }

    /** The guard exited: the server is gone. Restarted, or reported once, unless the JVM is stopping. */
    private void exited(Process gone) {
        if (this.closing) {
            return;
        }
        try {
            this.watcher.schedule(() -> restart(gone), SETTLE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            // closed meanwhile
        }
    }

    private void restart(Process gone) {
        synchronized (this) {
            if (this.closing || shuttingDown() || this.process != gone) {
                return;
            }
            this.process = null;
            this.lastExit = Instant.now();
            long deadPid = this.pid;
            if (!this.restarting) {
                this.failure = "The sample's redis-server (pid " + deadPid + ") exited; the run cannot go on.";
                log.error(this.failure);
                return;
            }
            if (this.restarts >= MAX_RESTARTS) {
                this.failure = "The sample's redis-server on port " + this.port + " exited again after " + this.restarts
                        + " restarts; it is left down. Restart the sample.";
                log.error(this.failure);
                return;
            }
            deleteDirectory();
            try {
                launch();
            } catch (RuntimeException e) {
                this.failure = "The sample's redis-server on port " + this.port + " (pid " + deadPid
                        + ") exited and could not be started again (" + e.getMessage() + "). Restart the sample.";
                log.error(this.failure);
                return;
            }
            this.restarts++;
            log.warn("The sample's redis-server (pid " + deadPid + ") exited; started a new one on the same port "
                    + this.port + " (pid " + this.pid + "). The data of the old one is lost.");
        }
        for (Runnable listener : this.listeners) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                log.warn("A listener of the redis-server's restart failed", e);
            }
        }
    }

    /** Whether the JVM has begun to shut down (a shutdown hook can no longer be added). */
    private static boolean shuttingDown() {
        Thread probe = new Thread(() -> {});
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException e) {
            return true;
        }
    }

    private void stop(Process stopping) {
        // Closing the guard's standard input is what it waits for: it kills the server, deletes the
        // directory and exits. A server started without a guard is killed directly.
        try {
            stopping.getOutputStream().close();
        } catch (IOException ignored) {
            // the guard is gone already
        }
        try {
            if (!stopping.waitFor(5, TimeUnit.SECONDS)) {
                ProcessHandle.of(this.pid).ifPresent(ProcessHandle::destroyForcibly);
                stopping.destroyForcibly();
                stopping.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized void deleteDirectory() {
        if (this.directory != null) {
            RedisProcesses.deleteDirectory(this.directory);
        }
    }
}
