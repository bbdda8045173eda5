package dev.turnstile.redis.history;

import dev.turnstile.redis.LockFactory;
import dev.turnstile.test.history.History;
import dev.turnstile.test.history.HistoryChecker;
import dev.turnstile.test.history.HistoryClock;
import dev.turnstile.test.history.Hold;
import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.ClockShift;
import dev.turnstile.test.redis.PartitionProxy;
import dev.turnstile.test.redis.RedisSentinelGroup;
import dev.turnstile.test.redis.RedisServer;
import dev.turnstile.test.redis.RedisServerExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * One cell of the history matrix: two holder processes of four threads each run the {@link
 * Workload} on one primitive while a nemesis applies one fault; then every hold of every process is
 * judged by the {@link HistoryChecker}. Holder processes are client instances in this JVM (each
 * with its own connections, local queues and watchdog, as a process has), or child JVMs when the
 * fault stops or kills a holder.
 */
final class HistoryRun {

    static final Duration LEASE = Duration.ofMillis(600);
    static final Duration WAIT = Duration.ofSeconds(2);
    static final Duration MAX_WORK = Duration.ofMillis(10);
    static final int THREADS = 4;
    /** How late a loss may be reported: a forced release is seen at the next renewal, a third of a lease. */
    static final Duration LOSS_BOUND = LEASE.dividedBy(3).plusMillis(200);
    /** How much longer than its wait an acquisition may take: a few calls that each time out. */
    static final Duration HANG_BOUND = Deployment.TIMEOUT.multipliedBy(4);

    private final RedisServerExtension redis;
    private final Random random = new Random(42);
    private List<RedisServer> masters;

    HistoryRun(RedisServerExtension redis) {
        this.redis = redis;
    }

    /**
     * What one cell gave.
     *
     * @param holds every acquisition of every process, as the checker judged them
     * @param failoverMillis for a Sentinel failover, from the cut of replication to the new master's
     *     promotion; else -1
     */
    record Result(
            Primitive primitive,
            Fault fault,
            HistoryChecker.Verdict verdict,
            List<Hold> holds,
            int faults,
            long failoverMillis) {}

    Result run(Primitive primitive, Fault fault, Duration length) throws Exception {
        List<RedisServer> servers = servers(primitive);
        servers.forEach(RedisServer::flushAll);
        try (Cell cell = new Cell(primitive, fault, servers)) {
            return cell.run(length);
        }
    }

    private List<RedisServer> servers(Primitive primitive) {
        if (primitive != Primitive.REDLOCK) {
            return List.of(this.redis.server());
        }
        if (this.masters == null) {
            this.masters = new ArrayList<>();
            boolean shiftable = ClockShift.isAvailable();
            for (int i = 0; i < 5; i++) {
                this.masters.add(this.redis.startServer(b -> shiftable ? b.shiftableClock() : b));
            }
        }
        this.masters.forEach(m -> {
            if (!m.isRunning()) {
                m.restart();
            }
            m.resume();
        });
        if (ClockShift.isAvailable()) {
            this.masters.forEach(m -> m.shiftClock(Duration.ZERO));
        }
        return this.masters;
    }

    /** The processes, clients and nemesis of one cell; closing it heals and reaps everything. */
    private final class Cell implements AutoCloseable {

        private final Primitive primitive;
        private final Fault fault;
        private final List<RedisServer> servers;
        private final History history = History.inMemory();
        private final HistoryChecker checker = HistoryChecker.withBounds(LOSS_BOUND, HANG_BOUND);
        private final List<AutoCloseable> resources = new ArrayList<>();
        private final List<PartitionProxy> proxies = new ArrayList<>();
        private final List<Workload> workloads = new ArrayList<>();
        private final List<String> processes = new ArrayList<>();
        private final List<ChildJvm> children = new ArrayList<>();
        private final List<Path> childFiles = new ArrayList<>();
        private final List<ChildJvm> killed = new ArrayList<>();
        private RedisSentinelGroup sentinel;
        private int faults;
        private long failoverMillis = -1;
        /** Each master's clock offset. */
        private final Duration[] offsets = {Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO};

        Cell(Primitive primitive, Fault fault, List<RedisServer> servers) {
            this.primitive = primitive;
            this.fault = fault;
            this.servers = servers;
        }

        Result run(Duration length) throws Exception {
            long runMillis = length.toMillis();
            if (this.fault.needsSentinel()) {
                this.sentinel = this.fault == Fault.FAILOVER_CLOCK_BEHIND
                        ? RedisSentinelGroup.start(1, RedisServer.Builder::shiftableClock)
                        : RedisSentinelGroup.start(1);
                this.resources.add(this.sentinel);
            }
            shiftClocks();
            addInJvmProcess("node-1", this.fault == Fault.PARTITION);
            if (this.fault.needsChildJvms()) {
                for (int i = 1; i <= 2; i++) {
                    addChild("child-" + i, runMillis);
                }
                for (ChildJvm child : this.children) {
                    child.awaitLineStartingWith("READY", Duration.ofSeconds(30));
                }
                this.children.forEach(child -> child.send("go"));
            } else {
                addInJvmProcess("node-2", false);
            }
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(runMillis);
            List<Thread> running = new ArrayList<>();
            for (Workload workload : this.workloads) {
                Thread thread = new Thread(
                        () -> {
                            try {
                                workload.run(THREADS, end);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "workload");
                thread.start();
                running.add(thread);
            }
            try {
                nemesis(end, length);
            } finally {
                heal();
            }
            for (Thread thread : running) {
                thread.join(TimeUnit.SECONDS.toMillis(60));
            }
            List<Hold> holds = new ArrayList<>(this.history.holds());
            for (int i = 0; i < this.children.size(); i++) {
                ChildJvm child = this.children.get(i);
                if (!this.killed.contains(child)) {
                    child.awaitLineStartingWith("DONE", Duration.ofSeconds(60));
                }
                holds.addAll(History.read(this.childFiles.get(i)));
            }
            return new Result(
                    this.primitive, this.fault, this.checker.check(holds), holds, this.faults, this.failoverMillis);
        }

        private void addInJvmProcess(String process, boolean throughProxy) {
            List<UnifiedJedis> clients = new ArrayList<>();
            if (this.sentinel != null) {
                clients.add(this.sentinel.newClient(Deployment.TIMEOUT));
            } else {
                for (RedisServer server : this.servers) {
                    if (throughProxy) {
                        PartitionProxy proxy = PartitionProxy.to(server.hostAndPort());
                        this.proxies.add(proxy);
                        this.resources.add(proxy);
                        clients.add(Deployment.client(proxy.hostAndPort()));
                    } else {
                        clients.add(Deployment.client(server.hostAndPort()));
                    }
                }
            }
            int minReplicas =
                    this.fault == Fault.FAILOVER_MIN_REPLICAS || this.fault == Fault.FAILOVER_CLOCK_BEHIND ? 1 : 0;
            Deployment.Clients connected = Deployment.on(this.primitive, clients, LEASE, minReplicas);
            this.resources.add(connected);
            this.processes.add(process);
            this.workloads.add(new Workload(process, this.primitive, connected.locks(), this.history, WAIT, MAX_WORK));
        }

        private void addChild(String process, long runMillis) throws IOException {
            Path file = Files.createTempFile("history-" + process, ".tsv");
            this.childFiles.add(file);
            String ports =
                    this.servers.stream().map(s -> Integer.toString(s.port())).collect(Collectors.joining(","));
            ChildJvm child = HistoryRun.this.redis.startChild(
                    HistoryWorkerMain.class,
                    this.primitive.name(),
                    process,
                    ports,
                    Long.toString(LEASE.toMillis()),
                    Long.toString(runMillis),
                    Integer.toString(THREADS),
                    file.toString());
            this.children.add(child);
            this.processes.add(process);
        }

        private void nemesis(long endNanos, Duration length) throws Exception {
            switch (this.fault) {
                case NONE -> park(endNanos - System.nanoTime());
                case REDIS_PAUSED_SHORT -> repeat(endNanos, 300, () -> pauseServers(2, LEASE.dividedBy(4)));
                case REDIS_PAUSED_LONG -> repeat(endNanos, 400, () -> pauseServers(3, LEASE.multipliedBy(2)));
                case HOLDER_PAUSED -> repeat(endNanos, 300, this::pauseHolder);
                case HOLDER_KILLED -> {
                    park(TimeUnit.MILLISECONDS.toNanos(length.toMillis() / 3));
                    ChildJvm victim = this.children.get(0);
                    long at = HistoryClock.nowMicros();
                    victim.kill();
                    this.killed.add(victim);
                    this.checker.killed("child-1", at);
                    this.faults++;
                    park(endNanos - System.nanoTime());
                }
                case PARTITION -> repeat(endNanos, 300, this::partition);
                case FORCE_RELEASE -> forceReleases(endNanos);
                case FAILOVER, FAILOVER_MIN_REPLICAS, FAILOVER_CLOCK_BEHIND -> {
                    park(TimeUnit.MILLISECONDS.toNanos(length.toMillis() / 4));
                    int old = this.sentinel.currentMasterPort();
                    // The worst failover: the last writes never reach the replica. Replication is cut
                    // (the replica frozen, its link dropped) for a moment, then the master dies.
                    RedisServer replica = this.sentinel.replicas().get(0);
                    long cut = System.nanoTime();
                    replica.pause();
                    try (Jedis master = this.sentinel.initialMaster().connect()) {
                        master.sendCommand(Protocol.Command.CLIENT, "KILL", "TYPE", "replica");
                    }
                    park(TimeUnit.MILLISECONDS.toNanos(300));
                    this.sentinel.initialMaster().kill();
                    replica.resume();
                    this.faults++;
                    this.sentinel.awaitFailover(old, Duration.ofSeconds(30));
                    this.failoverMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut);
                    park(endNanos - System.nanoTime());
                }
                case FENCE_AHEAD -> repeat(endNanos, 300, this::raiseFence);
                case MASTERS_CLOCKS_BEHIND -> repeat(endNanos, 300, this::stepMasterClocksBack);
                case MASTERS_CLOCKS_AHEAD, MASTER_DOWN_ANOTHER_AHEAD -> park(endNanos - System.nanoTime());
            }
        }

        /**
         * Sets the clocks before the workload starts: the masters' ahead of the clients' (each its
         * own offset, 5 s to 1 h), or behind them, or one master down and another ahead; on a
         * Sentinel group, the replica's 5 s behind its master's.
         */
        private void shiftClocks() {
            List<Duration> offsets = switch (this.fault) {
                case MASTERS_CLOCKS_AHEAD ->
                    List.of(
                            Duration.ofSeconds(5),
                            Duration.ofHours(1),
                            Duration.ofMinutes(30),
                            Duration.ofSeconds(5),
                            Duration.ofMinutes(10));
                case MASTERS_CLOCKS_BEHIND ->
                    List.of(
                            Duration.ofSeconds(-5),
                            Duration.ofHours(-1),
                            Duration.ofSeconds(-5),
                            Duration.ofMinutes(-30),
                            Duration.ofSeconds(-5));
                case MASTER_DOWN_ANOTHER_AHEAD -> List.of(Duration.ZERO, Duration.ofHours(1), Duration.ofSeconds(5));
                default -> List.of();
            };
            for (int i = 0; i < offsets.size(); i++) {
                this.offsets[i] = offsets.get(i);
                this.servers.get(i).shiftClock(offsets.get(i));
                this.faults++;
            }
            if (this.fault == Fault.MASTER_DOWN_ANOTHER_AHEAD) {
                this.servers.get(0).stop();
                this.faults++;
            }
            if (this.fault == Fault.FAILOVER_CLOCK_BEHIND) {
                this.sentinel.replicas().get(0).shiftClock(Duration.ofSeconds(-5));
                this.faults++;
            }
        }

        /**
         * Steps a random master's clock further back, by 1 s to 1 min: its keys live longer, its
         * floor drops. (A clock stepped ahead would expire its keys early, which Redlock does not
         * survive: the guarantees page says so.)
         */
        private void stepMasterClocksBack() {
            int index = HistoryRun.this.random.nextInt(this.servers.size());
            this.offsets[index] = this.offsets[index].minusSeconds(1 + HistoryRun.this.random.nextInt(60));
            this.servers.get(index).shiftClock(this.offsets[index]);
        }

        private void repeat(long endNanos, long gapMillis, Runnable action) {
            while (endNanos - System.nanoTime() > TimeUnit.MILLISECONDS.toNanos(gapMillis)) {
                park(TimeUnit.MILLISECONDS.toNanos(gapMillis / 2 + HistoryRun.this.random.nextInt((int) gapMillis)));
                if (endNanos - System.nanoTime() <= 0) {
                    return;
                }
                action.run();
                this.faults++;
            }
        }

        /** Pauses one server, or on Redlock {@code ofRedlock} masters, for {@code length}. */
        private void pauseServers(int ofRedlock, Duration length) {
            List<RedisServer> targets = new ArrayList<>(this.servers);
            java.util.Collections.shuffle(targets, HistoryRun.this.random);
            targets = targets.subList(0, this.servers.size() == 1 ? 1 : ofRedlock);
            targets.forEach(RedisServer::pause);
            try {
                park(length.toNanos());
            } finally {
                targets.forEach(RedisServer::resume);
            }
        }

        private void pauseHolder() {
            int index = HistoryRun.this.random.nextInt(this.children.size());
            ChildJvm child = this.children.get(index);
            long from = HistoryClock.nowMicros();
            child.pause();
            try {
                park(LEASE.multipliedBy(2).toNanos());
            } finally {
                child.resume();
                this.checker.paused("child-" + (index + 1), from, HistoryClock.nowMicros());
            }
        }

        private void partition() {
            this.proxies.forEach(PartitionProxy::partition);
            try {
                park(LEASE.multipliedBy(2).toNanos());
            } finally {
                this.proxies.forEach(PartitionProxy::heal);
            }
        }

        private void forceReleases(long endNanos) {
            try (Deployment.Clients operator = Deployment.on(
                    this.primitive,
                    this.servers.stream()
                            .map(s -> Deployment.client(s.hostAndPort()))
                            .toList(),
                    LEASE,
                    0)) {
                LockFactory locks = operator.locks();
                while (endNanos - System.nanoTime() > 0) {
                    park(TimeUnit.MILLISECONDS.toNanos(50));
                    List<String> names =
                            this.primitive == Primitive.MULTI_LOCK ? Workload.MULTI_NAMES : List.of(Workload.LOCK_NAME);
                    this.faults += locks.lock(names).forceRelease().size();
                }
            }
        }

        /**
         * Sets the fencing counter 2 s of server clock ahead, as a busy cohort leaves it; on Redlock,
         * on a majority of the masters, as a client whose clock runs 2 s ahead leaves them, so the
         * next acquire's first proposal is too low there and it takes a second round.
         */
        private void raiseFence() {
            int servers = this.primitive == Primitive.REDLOCK ? this.servers.size() / 2 + 1 : 1;
            for (RedisServer server : this.servers.subList(0, servers)) {
                raiseFence(server);
            }
        }

        private void raiseFence(RedisServer server) {
            List<String> names =
                    this.primitive == Primitive.MULTI_LOCK ? Workload.MULTI_NAMES : List.of(Workload.LOCK_NAME);
            try (UnifiedJedis client = server.newClient(Deployment.TIMEOUT)) {
                for (String name : names) {
                    String key = this.primitive.isSemaphore()
                            ? "turnstile:sem:{" + name + "}:fence"
                            : "turnstile:fence:{" + name + "}";
                    client.eval(
                            "local t = redis.call('TIME') local ahead = t[1] * 1000000 + t[2] + 2000000"
                                    + " if ahead > tonumber(redis.call('GET', KEYS[1]) or '0') then"
                                    + " redis.call('SET', KEYS[1], ahead, 'PX', 20000) end",
                            List.of(key),
                            List.of());
                }
            }
        }

        private void heal() {
            this.proxies.forEach(PartitionProxy::heal);
            for (RedisServer server : this.servers) {
                if (server.isRunning()) {
                    server.resume();
                }
            }
        }

        @Override
        public void close() {
            for (AutoCloseable resource : this.resources) {
                try {
                    resource.close();
                } catch (Exception e) {
                    throw new IllegalStateException("Could not close " + resource, e);
                }
            }
            this.children.forEach(ChildJvm::close);
            for (Path file : this.childFiles) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    private static void park(long nanos) {
        long end = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }
}
