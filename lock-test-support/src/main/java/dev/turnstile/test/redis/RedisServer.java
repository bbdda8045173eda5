package dev.turnstile.test.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLParameters;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.UnifiedJedis;

/**
 * One real {@code redis-server} process on a free loopback port, owned by the test that started it.
 *
 * <p>The server keeps its port across {@link #restart()}, so clients reconnect to it. With {@link
 * Builder#persistent(boolean)} it writes an append-only file that survives a restart; otherwise
 * it keeps nothing on disk. With {@link Builder#tls(TlsCertificates.Identity)} it accepts only TLS
 * connections ({@code --port 0 --tls-port}), and every client this class hands out speaks TLS.
 * Every server is reaped by {@link #close()}, by {@link
 * RedisServerExtension} after its test class, and by a JVM shutdown hook as a last resort. It never
 * binds port 6379 unless asked to.
 *
 * <p>Control methods are thread-safe.
 */
public final class RedisServer implements AutoCloseable {

    private static final Set<RedisServer> LIVE = ConcurrentHashMap.newKeySet();
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(15);

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(RedisServer::close), "redis-server-reaper"));
    }

    private final Path binary;
    private final boolean persistent;
    private final List<String> extraArguments;
    private final Path directory;
    private final int port;
    private final @Nullable String sentinelMonitor;
    private final TlsCertificates.@Nullable Identity tls;
    private final @Nullable Path clockFile;
    private @Nullable Process process;
    private @Nullable UnifiedJedis client;

    private RedisServer(Builder builder, int port) {
        this.binary = RedisServerBinary.locate();
        this.persistent = builder.persistent;
        this.extraArguments = List.copyOf(builder.extraArguments);
        try {
            this.directory = Files.createTempDirectory("turnstile-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.port = port;
        this.sentinelMonitor = builder.sentinelMonitor;
        this.tls = builder.tls;
        if (builder.shiftableClock) {
            this.clockFile = this.directory.resolve("clock-offset");
            ClockShift.write(this.clockFile, Duration.ZERO);
        } else {
            this.clockFile = null;
        }
    }

    /** Starts a fresh, non-persistent server on a free port. */
    public static RedisServer start() {
        return builder().start();
    }

    /** Returns a builder for a server with options. */
    public static Builder builder() {
        return new Builder();
    }

    /** Returns the port this server listens on (its TLS port under TLS); it stays the same across restarts. */
    public int port() {
        return this.port;
    }

    /** Returns {@code 127.0.0.1:port}. */
    public HostAndPort hostAndPort() {
        return new HostAndPort("127.0.0.1", this.port);
    }

    /** Returns {@code redis://127.0.0.1:port}, or {@code rediss://127.0.0.1:port} under TLS. */
    public URI uri() {
        return URI.create((this.tls != null ? "rediss" : "redis") + "://127.0.0.1:" + this.port);
    }

    /** Returns whether this server accepts only TLS connections. */
    public boolean isTls() {
        return this.tls != null;
    }

    /**
     * Returns a client configuration for this server with the given connect and socket timeout:
     * under TLS, one that trusts the authority that signed the server's certificate (and does not
     * check the host name: a test of host names builds its own).
     */
    public JedisClientConfig clientConfig(Duration timeout) {
        DefaultJedisClientConfig.Builder config =
                RedisClients.withProtocol(DefaultJedisClientConfig.builder().timeoutMillis((int) timeout.toMillis()));
        if (this.tls != null) {
            // Parameters of its own, with no endpoint identification: Jedis 8 checks the host name
            // when none are given, and Jedis 6 and 7 do not.
            config.ssl(true)
                    .sslSocketFactory(
                            TlsCertificates.trusting(this.tls.authority()).getSocketFactory())
                    .sslParameters(new SSLParameters());
        }
        return config.build();
    }

    /** Returns the process id while the server runs. */
    public synchronized long pid() {
        return requireProcess().pid();
    }

    /** Returns whether the process is alive (it may be paused). */
    public synchronized boolean isRunning() {
        return this.process != null && this.process.isAlive();
    }

    /**
     * Returns a pooled client for this server, created once and closed when the server stops, is
     * killed or closed (its connections would be dead). Its socket timeout is 2 s, so a test
     * against a paused server fails fast.
     */
    public synchronized UnifiedJedis client() {
        if (this.client == null) {
            this.client = newClient(Duration.ofSeconds(2));
        }
        return this.client;
    }

    /** Returns a new pooled client with the given connect and socket timeout; the caller closes it. */
    public UnifiedJedis newClient(Duration timeout) {
        return RedisClients.standalone(hostAndPort(), clientConfig(timeout));
    }

    /** Opens a single, unpooled connection for server commands ({@code CLIENT LIST}, {@code DEBUG}); the caller closes it. */
    public Jedis connect() {
        return new Jedis(hostAndPort(), clientConfig(Duration.ofSeconds(2)));
    }

    /**
     * Returns the version the server reports as {@code redis_version} in {@code INFO server}: a
     * Redis version, or the Redis version a Valkey server is compatible with (Valkey 8 reports
     * 7.2.4).
     */
    public RedisVersion version() {
        try (Jedis jedis = connect()) {
            return RedisVersion.fromInfo(jedis.info("server"));
        }
    }

    /** Deletes every key on this server (and on no other). */
    public void flushAll() {
        try (Jedis jedis = connect()) {
            jedis.flushAll();
        }
    }

    /**
     * Returns the number of calls per command from {@code INFO commandstats}, e.g. {@code evalsha
     * -> 12}.
     */
    public Map<String, Long> commandCounts() {
        Map<String, Long> counts = new LinkedHashMap<>();
        try (Jedis jedis = connect()) {
            for (String line : jedis.info("commandstats").split("\r?\n")) {
                if (line.startsWith("cmdstat_")) {
                    String command = line.substring("cmdstat_".length(), line.indexOf(':'));
                    String calls = line.substring(line.indexOf("calls=") + 6, line.indexOf(','));
                    counts.put(command, Long.parseLong(calls));
                }
            }
        }
        return counts;
    }

    /**
     * Returns the CPU time the server's main thread (the one that runs every command) has used, in
     * seconds, from {@code INFO cpu}: user plus system; the whole process's on a server too old to
     * tell the main thread apart.
     */
    public double mainThreadCpuSeconds() {
        Map<String, Double> cpu = new LinkedHashMap<>();
        try (Jedis jedis = connect()) {
            for (String line : jedis.info("cpu").split("\r?\n")) {
                int colon = line.indexOf(':');
                if (line.startsWith("used_cpu_") && colon > 0) {
                    cpu.put(line.substring(0, colon), Double.parseDouble(line.substring(colon + 1)));
                }
            }
        }
        if (cpu.containsKey("used_cpu_user_main_thread")) {
            return cpu.get("used_cpu_user_main_thread") + cpu.get("used_cpu_sys_main_thread");
        }
        return cpu.getOrDefault("used_cpu_user", 0.0) + cpu.getOrDefault("used_cpu_sys", 0.0);
    }

    /** Resets {@code INFO commandstats}. */
    public void resetStats() {
        try (Jedis jedis = connect()) {
            jedis.configResetStat();
        }
    }

    /** Stops the server gracefully (SIGTERM) and waits for it to exit. */
    public synchronized void stop() {
        closeClient();
        if (this.process != null) {
            resumeQuietly();
            this.process.destroy();
            awaitExit(this.process);
            this.process = null;
        }
    }

    /** Kills the server with SIGKILL: no shutdown, no save. */
    public synchronized void kill() {
        closeClient();
        if (this.process != null) {
            this.process.destroyForcibly();
            awaitExit(this.process);
            this.process = null;
        }
    }

    /** Freezes the server with SIGSTOP: connections stay open, nothing is answered. */
    public synchronized void pause() {
        signal("STOP");
    }

    /** Resumes a paused server with SIGCONT. */
    public synchronized void resume() {
        signal("CONT");
    }

    /**
     * Stops the server if it runs (SIGTERM, which lets a persistent server save) and starts it again
     * on the same port with the same data directory.
     */
    public synchronized RedisServer restart() {
        stop();
        return launch();
    }

    /** Kills the server and deletes its data directory; idempotent. */
    @Override
    public synchronized void close() {
        kill();
        LIVE.remove(this);
        RedisProcesses.deleteDirectory(this.directory);
    }

    @Override
    public String toString() {
        return "redis-server@" + this.port;
    }

    synchronized RedisServer launch() {
        if (isRunning()) {
            return this;
        }
        if (this.sentinelMonitor != null) {
            return launchSentinel();
        }
        List<String> command = RedisProcesses.command(
                this.binary, this.tls != null ? "0" : Integer.toString(this.port), this.directory, this.persistent);
        if (this.persistent) {
            command.addAll(List.of("--appendfsync", "always"));
        }
        if (this.tls != null) {
            command.addAll(List.of(
                    "--tls-port",
                    Integer.toString(this.port),
                    "--tls-cert-file",
                    this.tls.certificate().toString(),
                    "--tls-key-file",
                    this.tls.key().toString(),
                    "--tls-ca-cert-file",
                    this.tls.authority().toString(),
                    "--tls-auth-clients",
                    "no"));
        }
        command.addAll(this.extraArguments);
        try {
            Path log = this.directory.resolve(RedisProcesses.LOG);
            ProcessBuilder launch = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            if (this.clockFile != null) {
                launch.environment().put("LD_PRELOAD", ClockShift.library().toString());
                launch.environment().put(ClockShift.FILE_VARIABLE, this.clockFile.toString());
            }
            this.process = launch.start();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start " + this.binary, e);
        }
        LIVE.add(this);
        awaitReady();
        return this;
    }

    private RedisServer launchSentinel() {
        Path config = this.directory.resolve("sentinel.conf");
        try {
            Files.writeString(
                    config,
                    String.join(
                            "\n",
                            "port " + this.port,
                            "bind 127.0.0.1",
                            "protected-mode no",
                            "daemonize no",
                            "dir " + this.directory,
                            this.sentinelMonitor,
                            ""),
                    StandardCharsets.UTF_8);
            this.process = new ProcessBuilder(this.binary.toString(), config.toString(), "--sentinel")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(
                            this.directory.resolve(RedisProcesses.LOG).toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start a sentinel", e);
        }
        LIVE.add(this);
        awaitReady();
        return this;
    }

    /**
     * Waits until the server answers PING as the process just started, not one another JVM started
     * on the same port a moment earlier (a test must never write into a server it did not start). So
     * {@code REDIS_SERVER} must name the server itself, or a script that {@code exec}s it. {@link
     * #restart()} keeps its port, so a port taken while the server was stopped fails it. A server
     * that does not come up is killed.
     */
    private void awaitReady() {
        Process current = requireProcess();
        try {
            RedisProcesses.awaitOwnServer(
                    current,
                    current.pid(),
                    hostAndPort(),
                    clientConfig(Duration.ofMillis(500)),
                    this.directory,
                    this.tls != null
                            ? " (" + this.binary + " must be built with TLS, as Debian's redis-server is)"
                            : "");
        } catch (RuntimeException failed) {
            current.destroyForcibly();
            awaitExit(current);
            this.process = null;
            throw failed;
        }
    }

    private Process requireProcess() {
        if (this.process == null) {
            throw new IllegalStateException(this + " is not running");
        }
        return this.process;
    }

    private void closeClient() {
        if (this.client != null) {
            this.client.close();
            this.client = null;
        }
    }

    private void signal(String signal) {
        Signals.send(signal, requireProcess().pid());
    }

    private void resumeQuietly() {
        if (this.process != null) {
            Signals.sendQuietly("CONT", this.process.pid());
        }
    }

    private static void awaitExit(Process process) {
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A free port whose cluster bus port (port + 10000) is free too, both below the outgoing connections' range. */
    static int freeClusterPort() {
        return RedisProcesses.freePort(10_000);
    }

    /**
     * Sets this server's wall clock {@code offset} ahead of the machine's (behind if negative), from
     * now on and across restarts; its {@code TIME}, script clock and key expiry follow. A running
     * server's {@code TIME} shows the offset (within 500 ms) when this returns. Only for a server
     * built with {@link Builder#shiftableClock()}.
     *
     * @throws IllegalStateException if it was not, or its clock did not follow within 5 s
     */
    public void shiftClock(Duration offset) {
        if (this.clockFile == null) {
            throw new IllegalStateException(
                    "shiftClock needs a server built with RedisServer.builder().shiftableClock()");
        }
        ClockShift.write(this.clockFile, offset);
        if (!isRunning()) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (Math.abs(timeMillis() - System.currentTimeMillis() - offset.toMillis()) >= 500) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(this + "'s clock did not follow a shift to " + offset);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    /** Returns this server's {@code TIME}, in milliseconds since the epoch. */
    public long timeMillis() {
        try (Jedis jedis = connect()) {
            List<String> time = jedis.time();
            return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        }
    }

    /** Options for a {@link RedisServer}. */
    public static final class Builder {

        private boolean persistent;
        private int port;
        private java.util.function.IntSupplier ports = RedisProcesses::freePort;
        private @Nullable String sentinelMonitor;
        private TlsCertificates.@Nullable Identity tls;
        private final List<String> extraArguments = new ArrayList<>();
        private boolean shiftableClock;

        private Builder() {}

        /**
         * Runs the server under {@link ClockShift}, so {@link RedisServer#shiftClock(Duration)} can
         * move its wall clock. Starting it skips the calling test (with the reason) where the library
         * cannot be built.
         */
        public Builder shiftableClock() {
            this.shiftableClock = true;
            return this;
        }

        /**
         * Whether the server writes an append-only file (fsync always) that survives {@link
         * #restart()}; off by default.
         */
        public Builder persistent(boolean persistent) {
            this.persistent = persistent;
            return this;
        }

        /** Listens on this port instead of a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Picks the port from {@code ports} (free ones), again if another process takes one first. */
        Builder ports(java.util.function.IntSupplier ports) {
            this.ports = ports;
            return this;
        }

        /**
         * Accepts only TLS connections on the server's port, with {@code identity}'s certificate and
         * key ({@code --port 0 --tls-port}; clients are not asked for certificates). See {@link
         * TlsCertificates#server()}.
         */
        public Builder tls(TlsCertificates.Identity identity) {
            this.tls = identity;
            return this;
        }

        /** Adds {@code redis-server} arguments, e.g. {@code "--maxclients", "100"}. */
        public Builder arguments(String... arguments) {
            this.extraArguments.addAll(List.of(arguments));
            return this;
        }

        /**
         * Runs a Sentinel instead of a server, monitoring the master {@code masterName} at {@code
         * masterPort} with {@code quorum}, quick to declare it down (1 s) and to fail over.
         */
        public Builder sentinelOf(String masterName, int masterPort, int quorum) {
            this.sentinelMonitor = String.join(
                    "\n",
                    "sentinel monitor " + masterName + " 127.0.0.1 " + masterPort + " " + quorum,
                    "sentinel down-after-milliseconds " + masterName + " 1000",
                    "sentinel failover-timeout " + masterName + " 5000",
                    "sentinel parallel-syncs " + masterName + " 1");
            return this;
        }

        /**
         * Starts the server and waits until it answers PING as the process just started. A free port
         * that another process takes before the server binds it (tests of several JVMs start
         * servers at once) is given up for another free one, up to 5 times; a port given to {@link
         * #port(int)} is not.
         */
        public RedisServer start() {
            if (this.tls != null && this.sentinelMonitor != null) {
                throw new IllegalStateException("A Sentinel over TLS is not supported by this harness");
            }
            for (int attempt = 1; ; attempt++) {
                RedisServer server = new RedisServer(this, this.port > 0 ? this.port : this.ports.getAsInt());
                try {
                    return server.launch();
                } catch (RedisProcesses.PortTakenException taken) {
                    server.close();
                    if (this.port > 0 || attempt == 5) {
                        throw taken;
                    }
                } catch (RuntimeException failed) {
                    server.close();
                    throw failed;
                }
            }
        }
    }
}
