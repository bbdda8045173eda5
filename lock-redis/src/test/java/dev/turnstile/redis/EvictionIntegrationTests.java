package dev.turnstile.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.LeaseLostEvent.Reason;
import dev.turnstile.redis.TurnstileDiagnostics.Eviction;
import dev.turnstile.redis.TurnstileDiagnostics.Eviction.Risk;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.test.redis.RedisCluster;
import dev.turnstile.test.redis.RedisSentinelGroup;
import dev.turnstile.test.redis.RedisServer;
import dev.turnstile.test.redis.RedisServerExtension;
import dev.turnstile.test.redis.RestrictedRedisUser;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.UnifiedJedis;

/**
 * A server that may evict keys is reported where it can bite: one WARN per server when a Turnstile
 * or a Redlock starts, and {@code eviction()} on the diagnostics; a server that never evicts, or
 * whose settings cannot be read, is no WARN and no failure. And what the WARN says is what happens:
 * on an {@code allkeys-lru} server that fills up, a held lock's key is evicted, another client
 * gets the lock at once, and the holder hears of it only at its next renewal.
 */
class EvictionIntegrationTests {

    private static final String ALLKEYS_LRU = "allkeys-lru";
    private static final long TWO_MB = 2 * 1024 * 1024;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private PrintStream stderr;

    @BeforeEach
    void captureLog() {
        this.stderr = System.err;
        System.setErr(new PrintStream(this.log, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreLog() {
        System.setErr(this.stderr);
        System.err.print(logged());
    }

    @Test
    void aServerThatMayEvictIsOneWarnAtStartNamingItsPolicy() {
        RedisServer evicting = evictingServer(ALLKEYS_LRU);
        String address = "127.0.0.1:" + evicting.port();
        try (UnifiedJedis client = evicting.newClient(Duration.ofSeconds(2));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !warnings(address).isEmpty());
            List<Eviction> eviction = turnstile.diagnostics().eviction();
            turnstile.diagnostics().eviction();
            assertThat(eviction).singleElement().satisfies(server -> {
                assertThat(server.server()).isEqualTo(address);
                assertThat(server.risk()).isEqualTo(Risk.MAY_EVICT);
                assertThat(server.mayEvict()).isTrue();
                assertThat(server.policy()).isEqualTo(ALLKEYS_LRU);
                assertThat(server.maxmemory()).isEqualTo(TWO_MB);
                assertThat(server.summary()).isEqualTo("allkeys-lru, maxmemory 2097152 bytes: may evict lock keys");
            });
        }
        assertThat(warnings(address))
                .as("one WARN, though the server was read three times")
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .contains("maxmemory-policy is allkeys-lru")
                        .contains("maxmemory is 2097152 bytes")
                        .contains("evicts any key")
                        .contains("another client take the lock at once")
                        .contains("only at its next renewal")
                        .contains("noeviction"));
    }

    /**
     * Whichever read logs the WARN, a read that finds it logged returns only once it is written:
     * the starter reads the servers when the application starts so that the WARN is out before the
     * application is ready, also when the read that Turnstile starts in the background got there
     * first. Here the background read is held while it writes the WARN; before the fix the second
     * read returned at once, with nothing logged yet.
     */
    @Test
    void aReadReturnsOnlyOnceTheWarnAnotherReadLogsIsWritten() throws Exception {
        RedisServer evicting = evictingServer(ALLKEYS_LRU);
        String address = "127.0.0.1:" + evicting.port();
        Thread reader = Thread.currentThread();
        CountDownLatch writing = new CountDownLatch(1);
        PrintStream captured = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8) {
            @Override
            public void println(String line) {
                if (Thread.currentThread() != reader && line.contains(address + " may evict")) {
                    writing.countDown();
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500)); // a slow write of the WARN
                }
                super.println(line);
            }
        });
        try (UnifiedJedis client = evicting.newClient(Duration.ofSeconds(2));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            assertThat(writing.await(10, TimeUnit.SECONDS))
                    .as("the background read writes the WARN")
                    .isTrue();
            assertThat(turnstile.diagnostics().eviction())
                    .singleElement()
                    .satisfies(server -> assertThat(server.mayEvict()).isTrue());
            assertThat(warnings(address)).as("written when the read returns").hasSize(1);
        } finally {
            System.setErr(captured);
        }
    }

    @Test
    void aServerThatWasDownAtStartIsReadOnceItAnswers() {
        RedisServer evicting = evictingServer(ALLKEYS_LRU);
        String address = "127.0.0.1:" + evicting.port();
        evicting.stop();
        try (UnifiedJedis client = evicting.newClient(Duration.ofSeconds(2));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            assertThat(turnstile.diagnostics().eviction()).singleElement().satisfies(server -> {
                assertThat(server.risk()).isEqualTo(Risk.UNKNOWN);
                assertThat(server.reason()).startsWith("no answer");
            });
            evicting.restart();
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> !warnings(address).isEmpty());
        }
        assertThat(warnings(address)).hasSize(1);
        assertThat(logged()).doesNotContain("Could not check");
    }

    @Test
    void aVolatilePolicyIsReportedTooSinceEveryTurnstileKeyHasATtl() {
        RedisServer evicting = evictingServer("volatile-lru");
        String address = "127.0.0.1:" + evicting.port();
        try (UnifiedJedis client = evicting.newClient(Duration.ofSeconds(2));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            assertThat(turnstile.diagnostics().eviction())
                    .extracting(Eviction::risk, Eviction::policy)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(Risk.MAY_EVICT, "volatile-lru"));
            await().atMost(Duration.ofSeconds(5)).until(() -> !warnings(address).isEmpty());
        }
        assertThat(warnings(address))
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .contains("maxmemory-policy is volatile-lru")
                        .contains("evicts keys that have a TTL, and every Turnstile key has one"));
    }

    @Test
    void noevictionAndNoMaxmemoryAreNoWarning() {
        RedisServer noeviction =
                redis.startServer(b -> b.arguments("--maxmemory", "2mb", "--maxmemory-policy", "noeviction"));
        try (UnifiedJedis limited = noeviction.newClient(Duration.ofSeconds(2));
                Turnstile onLimited = Turnstile.builder(limited).build();
                UnifiedJedis unlimited = redis.server().newClient(Duration.ofSeconds(2));
                Turnstile onUnlimited = Turnstile.builder(unlimited).build()) {
            try (Jedis admin = redis.server().connect()) {
                admin.configSet("maxmemory-policy", ALLKEYS_LRU);
            }
            try {
                assertThat(onLimited.diagnostics().eviction()).singleElement().satisfies(server -> {
                    assertThat(server.risk()).isEqualTo(Risk.NONE);
                    assertThat(server.maxmemory()).isEqualTo(TWO_MB);
                    assertThat(server.summary()).isEqualTo("noeviction");
                });
                assertThat(onUnlimited.diagnostics().eviction()).singleElement().satisfies(server -> {
                    assertThat(server.risk()).isEqualTo(Risk.NONE);
                    assertThat(server.policy()).isEqualTo(ALLKEYS_LRU);
                    assertThat(server.summary()).isEqualTo("allkeys-lru, no maxmemory: evicts nothing");
                });
            } finally {
                try (Jedis admin = redis.server().connect()) {
                    admin.configSet("maxmemory-policy", "noeviction");
                }
            }
        }
        assertThat(logged()).doesNotContain("may evict Turnstile's keys");
    }

    @Test
    void aUserRefusedInfoStartsAndLocksAndIsOneLineNotAFailure() {
        RedisServer evicting = evictingServer(ALLKEYS_LRU);
        RestrictedRedisUser.createOn(
                evicting, "no-info", RestrictedRedisUser.rulesFor(evicting).replace(" +info", ""));
        try (Jedis admin = evicting.connect()) {
            admin.aclLogReset();
        }
        String address = "127.0.0.1:" + evicting.port();
        try (UnifiedJedis lacking = RestrictedRedisUser.connect(evicting, "no-info");
                Turnstile turnstile = Turnstile.builder(lacking).build()) {
            try (Lease lease = turnstile.lock("item:42").acquire(Duration.ofSeconds(1), null)) {
                assertThat(lease.isHeld()).isTrue();
            }
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !lines(address, "Could not check").isEmpty());
            for (int i = 0; i < 3; i++) {
                assertThat(turnstile.diagnostics().eviction()).singleElement().satisfies(server -> {
                    assertThat(server.server()).isEqualTo(address);
                    assertThat(server.risk()).isEqualTo(Risk.UNKNOWN);
                    assertThat(server.reason()).contains("may not run INFO").contains("NOPERM");
                });
            }
            assertThat(turnstile.diagnostics().health().up()).isTrue();
        }
        assertThat(lines(address, "Could not check"))
                .singleElement()
                .satisfies(line -> assertThat(line).contains("INFO").doesNotContain("WARN"));
        assertThat(warnings(address)).isEmpty();
        try (Jedis admin = evicting.connect()) {
            assertThat(admin.aclLog())
                    .as("INFO was refused once and not sent again")
                    .hasSize(1)
                    .allSatisfy(entry -> assertThat(entry.getCount()).isEqualTo(1));
        }
    }

    @Test
    void everyMasterOfAClusterIsCheckedAndNoReplica() {
        RedisCluster cluster = SharedCluster.cluster();
        cluster.masters().forEach(master -> configure(master, "1gb", ALLKEYS_LRU));
        try (UnifiedJedis client = SharedCluster.newClient();
                Turnstile turnstile = Turnstile.builder(client).build()) {
            List<Eviction> eviction = turnstile.diagnostics().eviction();
            assertThat(eviction)
                    .extracting(Eviction::server)
                    .containsExactlyInAnyOrderElementsOf(cluster.masters().stream()
                            .map(master -> "127.0.0.1:" + master.port())
                            .toList());
            assertThat(eviction)
                    .allSatisfy(server -> assertThat(server.mayEvict()).isTrue());
            for (RedisServer master : cluster.masters()) {
                await().atMost(Duration.ofSeconds(5))
                        .untilAsserted(() -> assertThat(warnings("127.0.0.1:" + master.port()))
                                .hasSize(1));
            }
        } finally {
            cluster.masters().forEach(master -> configure(master, "0", "noeviction"));
        }
    }

    @Test
    void theSentinelManagedMasterIsChecked() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start(1)) {
            configure(group.initialMaster(), "2mb", "volatile-ttl");
            String address = "127.0.0.1:" + group.initialMaster().port();
            try (UnifiedJedis client = group.newClient(Duration.ofSeconds(2));
                    Turnstile turnstile = Turnstile.builder(client).build()) {
                assertThat(turnstile.diagnostics().eviction()).singleElement().satisfies(server -> {
                    assertThat(server.server()).isEqualTo(address);
                    assertThat(server.policy()).isEqualTo("volatile-ttl");
                    assertThat(server.mayEvict()).isTrue();
                });
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> !warnings(address).isEmpty());
            }
            assertThat(warnings(address))
                    .singleElement()
                    .satisfies(line -> assertThat(line).contains("nearest to their expiry first"));
        }
    }

    @Test
    void everyRedlockMasterIsCheckedAndTheOneThatMayEvictIsNamed() {
        RedisServer evicting = evictingServer(ALLKEYS_LRU);
        List<RedisServer> servers = List.of(redis.server(), redis.startServer(b -> b), evicting);
        List<UnifiedJedis> clients = servers.stream()
                .map(server -> server.newClient(Duration.ofSeconds(2)))
                .toList();
        try (Redlock redlock = Redlock.of(clients)) {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !warnings("Redlock master 127.0.0.1:" + evicting.port())
                            .isEmpty());
            assertThat(redlock.eviction())
                    .extracting(Eviction::server, Eviction::risk)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(
                                    "Redlock master 127.0.0.1:" + servers.get(0).port(), Risk.NONE),
                            org.assertj.core.groups.Tuple.tuple(
                                    "Redlock master 127.0.0.1:" + servers.get(1).port(), Risk.NONE),
                            org.assertj.core.groups.Tuple.tuple(
                                    "Redlock master 127.0.0.1:" + evicting.port(), Risk.MAY_EVICT));
        } finally {
            clients.forEach(UnifiedJedis::close);
        }
        assertThat(lines("may evict Turnstile's keys", "WARN")).hasSize(1);
    }

    /**
     * What the WARN and docs/operations.md#eviction say, on a real server: the lock's key is evicted
     * while it is held, a second client gets the lock at once, and the holder still believes it
     * holds it until its next renewal, which reports the loss to its listener: a third of the lease
     * after the last renewal at most, so within a third of the lease of the eviction.
     */
    @Test
    void anEvictedLockIsTakenAtOnceAndItsHolderLearnsOnlyAtItsNextRenewal() {
        RedisServer evicting = evictingServer(ALLKEYS_LRU);
        AtomicInteger renewals = new AtomicInteger();
        List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
        AtomicLong lostAtNanos = new AtomicLong();
        LeaseListener listener = new LeaseListener() {
            @Override
            public void leaseLost(LeaseLostEvent event) {
                lostAtNanos.compareAndSet(0, System.nanoTime());
                lost.add(event);
            }

            @Override
            public void leaseRenewed(LeaseKind kind, String name) {
                renewals.incrementAndGet();
            }
        };
        // Renewed every 10 s (a third of the lease): the eviction and the second acquire fit between
        // two, also on a busy machine.
        Duration lease = Duration.ofSeconds(30);
        try (UnifiedJedis holderClient = evicting.newClient(Duration.ofSeconds(2));
                UnifiedJedis otherClient = evicting.newClient(Duration.ofSeconds(2));
                Turnstile holder = Turnstile.builder(holderClient)
                        .defaultLease(lease)
                        .listener(listener)
                        .build();
                Turnstile other = Turnstile.builder(otherClient).build();
                Jedis admin = evicting.connect()) {
            Lease held = holder.lock("invoice:7").acquire(Duration.ZERO, null);
            await().atMost(lease).until(() -> renewals.get() == 1);

            long evicted = fillUntilEvicted(admin, "turnstile:lock:{invoice:7}");
            long evictedAtNanos = System.nanoTime();
            Lease taken = other.lock("invoice:7").acquire(Duration.ZERO, Duration.ofSeconds(30));

            assertThat(renewals.get()).as("no renewal ran since the eviction").isEqualTo(1);
            assertThat(held.isHeld()).as("the holder does not know yet").isTrue();
            assertThat(lost).as("nor does its listener").isEmpty();
            assertThat(taken.isHeld()).isTrue();
            assertThat(taken.fencingToken())
                    .as("the fencing token still rises: it floors at the server's clock")
                    .isGreaterThan(held.fencingToken());

            Duration nextRenewal = lease.dividedBy(3).plusMillis(500);
            await().atMost(lease).until(() -> !lost.isEmpty());
            assertThat(Duration.ofNanos(lostAtNanos.get() - evictedAtNanos))
                    .as("the loss is heard at the next renewal, a third of the lease after the last at most")
                    .isLessThanOrEqualTo(nextRenewal);
            assertThat(renewals.get())
                    .as("no renewal succeeded after the eviction")
                    .isEqualTo(1);
            assertThat(lost).singleElement().satisfies(event -> {
                assertThat(event.name()).isEqualTo("invoice:7");
                assertThat(event.reason()).isEqualTo(Reason.TAKEN_OVER);
                assertThat(event.fencingToken()).isEqualTo(held.fencingToken());
            });
            assertThat(held.isHeld()).isFalse();
            assertThat(taken.isHeld()).as("the second holder keeps the lock").isTrue();
            System.out.printf("The lock's key went after %d evictions%n", evicted);
            taken.release();
        }
    }

    /**
     * What {@code noeviction} does instead, as docs/operations.md#eviction says: a full server
     * refuses new grants with Redis's OOM error, and the locks already held stay held and renewed.
     */
    @Test
    void aFullNoevictionServerRefusesNewLocksAndKeepsRenewingTheHeldOnes() {
        RedisServer full =
                redis.startServer(b -> b.arguments("--maxmemory", "2mb", "--maxmemory-policy", "noeviction"));
        AtomicInteger renewals = new AtomicInteger();
        LeaseListener listener = new LeaseListener() {
            @Override
            public void leaseLost(LeaseLostEvent event) {}

            @Override
            public void leaseRenewed(LeaseKind kind, String name) {
                renewals.incrementAndGet();
            }
        };
        try (UnifiedJedis client = full.newClient(Duration.ofSeconds(2));
                Turnstile turnstile = Turnstile.builder(client)
                        .defaultLease(Duration.ofSeconds(3))
                        .listener(listener)
                        .build();
                Jedis admin = full.connect()) {
            Lease held = turnstile.lock("invoice:8").acquire(Duration.ZERO, null);
            fillUntilRefused(admin);
            // Used memory moves by a few KB (client buffers): keep it over the limit, as on a server
            // that stays full, so that no small write slips in between.
            long used = Long.parseLong(field(admin.info("memory"), "used_memory"));
            admin.configSet("maxmemory", Long.toString(used - 64 * 1024));

            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> turnstile.lock("invoice:9").tryAcquire(Duration.ZERO, null))
                    .isInstanceOf(TurnstileException.class)
                    .hasMessageContaining("OOM");
            int before = renewals.get();
            await().atMost(Duration.ofSeconds(10)).until(() -> renewals.get() >= before + 2);
            assertThat(held.isHeld()).isTrue();
            assertThat(admin.exists("turnstile:lock:{invoice:8}")).isTrue();
            assertThat(field(admin.info("stats"), "evicted_keys")).isEqualTo("0");
            assertThat(held.release())
                    .as("a release frees memory, so it is allowed")
                    .isTrue();
        }
    }

    /** Writes 1 KB values until Redis refuses one for lack of memory. */
    private static void fillUntilRefused(Jedis admin) {
        String value = "x".repeat(1024);
        for (int i = 0; i < 100_000; i++) {
            try {
                admin.set("filler:" + i, value);
            } catch (redis.clients.jedis.exceptions.JedisDataException e) {
                assertThat(e.getMessage()).startsWith("OOM");
                return;
            }
        }
        throw new AssertionError("the server never ran out of memory");
    }

    /** Writes 1 KB values until Redis evicted {@code key}; returns the server's eviction count. */
    private static long fillUntilEvicted(Jedis admin, String key) {
        String value = "x".repeat(1024);
        for (int batch = 0; batch < 1000 && admin.exists(key); batch++) {
            Pipeline pipeline = admin.pipelined();
            for (int i = 0; i < 100; i++) {
                pipeline.set("filler:" + batch + ":" + i, value);
            }
            pipeline.sync();
        }
        assertThat(admin.exists(key)).as("the lock's key was evicted").isFalse();
        return Long.parseLong(field(admin.info("stats"), "evicted_keys"));
    }

    private static String field(String info, String name) {
        return info.lines()
                .filter(line -> line.startsWith(name + ":"))
                .map(line -> line.substring(name.length() + 1).strip())
                .findFirst()
                .orElseThrow();
    }

    private static RedisServer evictingServer(String policy) {
        return redis.startServer(b -> b.arguments("--maxmemory", "2mb", "--maxmemory-policy", policy));
    }

    private static void configure(RedisServer server, String maxmemory, String policy) {
        try (Jedis admin = server.connect()) {
            admin.configSet("maxmemory", maxmemory);
            admin.configSet("maxmemory-policy", policy);
        }
    }

    private String logged() {
        return this.log.toString(StandardCharsets.UTF_8);
    }

    /** The WARN lines that say {@code server} may evict. */
    private List<String> warnings(String server) {
        return lines(server + " may evict", "WARN");
    }

    private List<String> lines(String... parts) {
        Predicate<String> all = line -> List.of(parts).stream().allMatch(line::contains);
        return logged().lines().filter(all).toList();
    }
}
