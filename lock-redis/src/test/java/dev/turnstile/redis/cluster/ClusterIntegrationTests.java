package dev.turnstile.redis.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.semaphore.Permit;
import dev.turnstile.redis.semaphore.RedisSemaphore;
import dev.turnstile.test.redis.RedisCluster;
import dev.turnstile.test.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/** Locks and semaphores through a cluster client on a real cluster of 3 masters and 3 replicas. */
class ClusterIntegrationTests {

    private static RedisCluster cluster;
    private UnifiedJedis client;
    private Turnstile turnstile;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3, 1);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @BeforeEach
    void connect() {
        this.client = cluster.newClient(Duration.ofSeconds(2));
        this.turnstile = Turnstile.builder(this.client).build();
    }

    @AfterEach
    void disconnect() {
        this.turnstile.close();
        this.client.close();
    }

    @Test
    void everyKeyOfOneLockOrSemaphoreLandsInOneSlot() {
        // The keys the product builds (not literals written here), for names whose braces would
        // move a hash tag if the name were not wrapped whole; each set must share one slot.
        dev.turnstile.redis.internal.RedisKeys keys = new dev.turnstile.redis.internal.RedisKeys("turnstile");
        for (String name : List.of("item:42", "odd{name}", "a}b", "{x}y")) {
            List<String> lock = List.of(
                    keys.lock(name), keys.lockFence(name), keys.lockForceReleased(name), keys.lockChannel(name));
            List<String> semaphore = List.of(
                    keys.semaphore(name),
                    keys.semaphoreFence(name),
                    keys.semaphoreQueue(name),
                    keys.semaphoreQueueAlive(name),
                    keys.semaphoreTicket(name),
                    keys.semaphoreChannel(name));
            assertThat(lock.stream().map(JedisClusterCRC16::getSlot).distinct())
                    .as("slots of the lock keys %s", lock)
                    .hasSize(1);
            assertThat(semaphore.stream().map(JedisClusterCRC16::getSlot).distinct())
                    .as("slots of the semaphore keys %s", semaphore)
                    .hasSize(1);
        }
        // And the keys a lock leaves on the cluster are those.
        Lease lease = this.turnstile.lock("odd{name}").acquire(Duration.ZERO, Duration.ofSeconds(10));
        assertThat(this.client.exists(keys.lock("odd{name}"))).isTrue();
        assertThat(this.client.exists(keys.lockFence("odd{name}"))).isTrue();
        lease.release();
    }

    @Test
    void lockWaitAndReleaseWorkThroughTheClusterClient() throws Exception {
        Turnstile other = Turnstile.builder(this.client).build();
        try {
            Lease first = this.turnstile.lock("item:1").acquire(Duration.ZERO, null);
            ExecutorService waiter = Executors.newSingleThreadExecutor();
            Future<Lease> second = waiter.submit(() -> other.lock("item:1").acquire(Duration.ofSeconds(10), null));
            assertThat(this.turnstile.lock("item:1").tryAcquire()).isEmpty();
            first.release();
            Lease next = second.get();
            assertThat(next.fencingToken()).isGreaterThan(first.fencingToken());
            next.release();
            waiter.shutdown();
        } finally {
            other.close();
        }
    }

    @Test
    void releasesAreSignalledOverShardedPubSubOnlyToTheShardThatOwnsTheLockOnRedis7AndOverPlainPubSubOnRedis6()
            throws Exception {
        boolean sharded = cluster.masters().get(0).version().atLeast(7, 0);
        String subscribe = sharded ? "ssubscribe" : "subscribe";
        currentMasters().forEach(RedisServer::resetStats);
        Turnstile other = Turnstile.builder(this.client).build();
        ExecutorService waiter = Executors.newSingleThreadExecutor();
        try {
            Lease held = this.turnstile.lock("sharded").acquire(Duration.ZERO, null);
            Future<Lease> next = waiter.submit(() -> other.lock("sharded").acquire(Duration.ofSeconds(10), null));
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> currentMasters().stream()
                                    .mapToLong(master -> master.commandCounts().getOrDefault(subscribe, 0L))
                                    .sum()
                            > 0);
            assertThat(other.diagnostics().shardedSignals()).isEqualTo(sharded);
            held.release();
            next.get(5, java.util.concurrent.TimeUnit.SECONDS).release();
        } finally {
            waiter.shutdownNow();
            other.close();
        }
        int slot = JedisClusterCRC16.getSlot("turnstile:lock:{sharded}");
        long published = 0;
        for (RedisServer master : currentMasters()) {
            java.util.Map<String, Long> counts = master.commandCounts();
            published += counts.getOrDefault("publish", 0L);
            if (!sharded) {
                continue;
            }
            assertThat(counts.getOrDefault("publish", 0L))
                    .as("no broadcast PUBLISH on %s", master)
                    .isZero();
            boolean owner = owns(master, slot);
            assertThat(counts.getOrDefault("spublish", 0L) > 0)
                    .as("SPUBLISH only on the owner")
                    .isEqualTo(owner);
            assertThat(counts.getOrDefault("ssubscribe", 0L) > 0)
                    .as("SSUBSCRIBE only on the owner")
                    .isEqualTo(owner);
        }
        if (!sharded) {
            assertThat(published)
                    .as("a Redis 6 cluster's release is a plain PUBLISH")
                    .isPositive();
        }
    }

    private static boolean owns(RedisServer master, int slot) {
        try (Jedis jedis = master.connect()) {
            String myself = jedis.clusterNodes()
                    .lines()
                    .filter(line -> line.contains("myself"))
                    .findFirst()
                    .orElseThrow();
            String[] fields = myself.split(" ");
            // id addr flags master ping-sent pong-recv epoch link-state slot...
            for (int field = 8; field < fields.length; field++) {
                String range = fields[field];
                if (range.matches("\\d+(-\\d+)?")) {
                    String[] bounds = range.split("-");
                    int from = Integer.parseInt(bounds[0]);
                    int to = Integer.parseInt(bounds[bounds.length - 1]);
                    if (slot >= from && slot <= to) {
                        return true;
                    }
                }
            }
            return false;
        }
    }

    @Test
    void multiKeyLockAcrossSlotsIsTakenSlotBySlotAllOrNothing() {
        List<String> names = List.of("account:1", "account:2", "account:3", "account:4");
        assertThat(names.stream()
                        .map(n -> JedisClusterCRC16.getSlot("turnstile:lock:{" + n + "}"))
                        .distinct()
                        .count())
                .as("the names live in different slots")
                .isGreaterThan(1);
        Lease blocker = this.turnstile.lock("account:3").acquire(Duration.ZERO, null);
        assertThat(this.turnstile.lock(names).tryAcquire(Duration.ZERO, null)).isEmpty();
        assertThat(this.client.exists("turnstile:lock:{account:1}"))
                .as("rolled back")
                .isFalse();
        blocker.release();
        try (Lease all = this.turnstile.lock(names).acquire(Duration.ZERO, null)) {
            assertThat(all.fencingTokens()).containsOnlyKeys(names);
        }
    }

    @Test
    void semaphoreHoldsItsLimitOnTheCluster() {
        RedisSemaphore semaphore = this.turnstile.semaphore("partner", 2);
        Optional<Permit> a = semaphore.tryAcquire();
        Optional<Permit> b = semaphore.tryAcquire();
        assertThat(a).isPresent();
        assertThat(b).isPresent();
        assertThat(semaphore.tryAcquire()).isEmpty();
        assertThat(semaphore.fair().tryAcquire()).isEmpty();
        a.get().release();
        assertThat(semaphore.fair().tryAcquire()).isPresent();
    }

    @Test
    void replicaPromotionDuringLoadSurfacesNoErrorAndBreaksNoExclusion() throws Exception {
        int slot = JedisClusterCRC16.getSlot("turnstile:lock:{promoted}");
        RedisServer replica = replicaServing(slot);
        underLoad("promoted", () -> {
            try (Jedis promote = replica.connect()) {
                promote.clusterFailover(); // a graceful switchover: the replica becomes the slot's master
            }
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
                try (Jedis jedis = replica.connect()) {
                    return jedis.info("replication").contains("role:master");
                }
            });
        });
    }

    @Test
    void slotMigrationDuringLoadSurfacesNoErrorAndBreaksNoExclusion() throws Exception {
        int slot = JedisClusterCRC16.getSlot("turnstile:lock:{migrating}");
        underLoad("migrating", () -> {
            RedisServer source = currentMasters().stream()
                    .filter(m -> owns(m, slot))
                    .findFirst()
                    .orElseThrow();
            RedisServer target = currentMasters().stream()
                    .filter(m -> !owns(m, slot))
                    .findFirst()
                    .orElseThrow();
            migrate(slot, source, target);
            assertThat(owns(target, slot)).isTrue();
        });
    }

    /**
     * Runs 4 threads in two Turnstile instances incrementing a GET/SET counter under lock {@code
     * name}, does {@code change} to the cluster in the middle, and checks that no error reached a
     * caller and that the count is exact.
     */
    private void underLoad(String name, Runnable change) throws Exception {
        String counter = "{" + name + "}:counter";
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger increments = new AtomicInteger();
        List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        Turnstile otherProcess = Turnstile.builder(this.client).build();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Turnstile process = t % 2 == 0 ? this.turnstile : otherProcess;
            workers.add(pool.submit(() -> {
                while (running.get()) {
                    try (Lease lease = process.lock(name).acquire(Duration.ofSeconds(20), null)) {
                        String value = this.client.get(counter);
                        this.client.set(counter, Long.toString(value == null ? 1 : Long.parseLong(value) + 1));
                        increments.incrementAndGet();
                    } catch (RuntimeException e) {
                        errors.add(e);
                    }
                }
                return null;
            }));
        }
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> increments.get() > 100);
        change.run();
        int before = increments.get();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> increments.get() > before + 100);
        running.set(false);
        for (Future<?> worker : workers) {
            worker.get();
        }
        pool.shutdown();
        otherProcess.close();
        assertThat(errors).as("errors that reached callers").isEmpty();
        assertThat(this.client.get(counter)).isEqualTo(Integer.toString(increments.get()));
    }

    /** The nodes that are masters now (a promotion test may have swapped roles). */
    private static List<RedisServer> currentMasters() {
        List<RedisServer> all = new ArrayList<>(cluster.masters());
        all.addAll(cluster.replicas());
        return all.stream()
                .filter(node -> {
                    try (Jedis jedis = node.connect()) {
                        return jedis.info("replication").contains("role:master");
                    }
                })
                .toList();
    }

    /** Moves {@code slot} the way redis-cli --cluster reshard does: IMPORTING, MIGRATING, MIGRATE, NODE. */
    private static void migrate(int slot, RedisServer source, RedisServer target) {
        try (Jedis from = source.connect();
                Jedis to = target.connect()) {
            String sourceId = from.clusterMyId();
            String targetId = to.clusterMyId();
            to.clusterSetSlotImporting(slot, sourceId);
            from.clusterSetSlotMigrating(slot, targetId);
            List<String> keys;
            while (!(keys = from.clusterGetKeysInSlot(slot, 100)).isEmpty()) {
                from.migrate(
                        "127.0.0.1",
                        target.port(),
                        5000,
                        new redis.clients.jedis.params.MigrateParams().replace(),
                        keys.toArray(String[]::new));
            }
            for (RedisServer master : currentMasters()) {
                try (Jedis node = master.connect()) {
                    node.clusterSetSlotNode(slot, targetId);
                }
            }
        }
    }

    private static RedisServer replicaServing(int slot) {
        for (RedisServer replica : cluster.replicas()) {
            try (Jedis jedis = replica.connect()) {
                String masterId = jedis.clusterNodes()
                        .lines()
                        .filter(line -> line.contains("myself"))
                        .findFirst()
                        .orElseThrow()
                        .split(" ")[3];
                String masterLine = jedis.clusterNodes()
                        .lines()
                        .filter(line -> line.startsWith(masterId))
                        .findFirst()
                        .orElseThrow();
                for (String range : masterLine.split(" ")) {
                    if (range.matches("\\d+-\\d+")) {
                        String[] bounds = range.split("-");
                        if (slot >= Integer.parseInt(bounds[0]) && slot <= Integer.parseInt(bounds[1])) {
                            return replica;
                        }
                    }
                }
            }
        }
        throw new IllegalStateException("No replica serves slot " + slot);
    }
}
