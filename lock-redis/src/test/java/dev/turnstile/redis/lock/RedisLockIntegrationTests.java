package dev.turnstile.redis.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseLostEvent;
import dev.turnstile.redis.NamedLock;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.internal.LockScriptsAccess;
import dev.turnstile.test.redis.CommandRecorder;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;

class RedisLockIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
    private UnifiedJedis client;
    private Turnstile turnstile;
    /** Another instance: its waiters contend in Redis, not in this instance's local queue. */
    private Turnstile otherProcess;

    @BeforeEach
    void setUp() {
        this.client = redis.server().newClient(Duration.ofSeconds(2));
        this.turnstile = Turnstile.builder(this.client)
                .defaultLease(Duration.ofSeconds(3))
                .listener(this.lost::add)
                .build();
        this.otherProcess = Turnstile.builder(this.client).build();
    }

    @AfterEach
    void tearDown() {
        this.turnstile.close();
        this.otherProcess.close();
        this.client.close();
    }

    /** docs/java-api.md: {@code tryAcquire()} is one try, one Redis call, granted or refused. */
    @Test
    void tryAcquireIsOneRedisCallWhetherItGrantsOrIsRefused() {
        NamedLock lock = this.turnstile.lock("one-call");
        // The first call of a script on a new server may also load it (NOSCRIPT, then EVAL).
        lock.tryAcquire().orElseThrow().release();

        Optional<Lease> granted;
        List<String> grantCommands;
        try (CommandRecorder recorder = CommandRecorder.start(redis.server())) {
            granted = lock.tryAcquire();
            grantCommands = recorder.clientCommands();
        }
        assertThat(granted).isPresent();
        assertThat(grantCommands).as("a granting tryAcquire()").containsExactly("EVALSHA");

        Optional<Lease> refused;
        List<String> refusalCommands;
        try (CommandRecorder recorder = CommandRecorder.start(redis.server())) {
            refused = this.otherProcess.lock("one-call").tryAcquire();
            refusalCommands = recorder.clientCommands();
        }
        assertThat(refused).isEmpty();
        assertThat(refusalCommands).as("a refused tryAcquire()").containsExactly("EVALSHA");
        assertThat(granted.get().release()).isTrue();
    }

    /**
     * {@code Lease.confirm()} renews on the lease's own terms: a watchdog lease for its lease time, a
     * fixed one to what is left of it (its deadline does not move), and a lease another owner took
     * is refused and reported lost.
     */
    @Test
    void confirmRenewsOnTheLeasesOwnTerms() throws Exception {
        try (Lease watchdog = this.turnstile.lock("confirm-watchdog").acquire(Duration.ZERO, null)) {
            this.client.pexpire("turnstile:lock:{confirm-watchdog}", 500);
            watchdog.confirm();
            assertThat(this.client.pttl("turnstile:lock:{confirm-watchdog}"))
                    .as("renewed for the default lease of 3 s")
                    .isBetween(2_000L, 3_000L);
        }
        try (Lease fixed = this.turnstile.lock("confirm-fixed").acquire(Duration.ZERO, Duration.ofSeconds(2))) {
            long before = this.client.pttl("turnstile:lock:{confirm-fixed}");
            fixed.confirm(); // the default lease (3 s) would move it past its 2 s
            assertThat(this.client.pttl("turnstile:lock:{confirm-fixed}"))
                    .as("a fixed lease keeps its deadline")
                    .isBetween(1L, before);
            assertThat(fixed.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(2));
        }
        Lease taken = this.turnstile.lock("confirm-taken").acquire(Duration.ZERO, Duration.ofSeconds(10));
        this.client.set("turnstile:lock:{confirm-taken}", "another-owner");
        assertThatThrownBy(taken::confirm).isInstanceOf(dev.turnstile.redis.LockLostException.class);
        assertThat(taken.isHeld()).isFalse();
        assertThat(this.lost).extracting(LeaseLostEvent::name).contains("confirm-taken");
    }

    /**
     * {@code confirm()} of a multi-key lease confirms every name, and of a permit its member of the
     * holders ZSET: each is refused, and reported lost, once another owner took one of its names or
     * its member is gone.
     */
    @Test
    void confirmOfAMultiKeyLeaseAndOfAPermitChecksEveryPartInRedis() {
        Lease both =
                this.turnstile.lock(List.of("confirm-a", "confirm-b")).acquire(Duration.ZERO, Duration.ofSeconds(10));
        both.confirm();
        this.client.set("turnstile:lock:{confirm-b}", "another-owner");
        assertThatThrownBy(both::confirm).isInstanceOf(dev.turnstile.redis.LockLostException.class);

        dev.turnstile.redis.semaphore.Permit permit =
                this.turnstile.semaphore("confirm-permits", 2).acquire(Duration.ZERO, null);
        permit.confirm();
        assertThat(this.client.zscore("turnstile:sem:{confirm-permits}", permit.id()))
                .as("the permit's expiry, renewed for the default lease of 3 s")
                .isNotNull();
        this.client.zrem("turnstile:sem:{confirm-permits}", permit.id());
        assertThatThrownBy(permit::confirm).isInstanceOf(dev.turnstile.redis.LockLostException.class);
        assertThat(permit.isHeld()).isFalse();
    }

    @Test
    void waitersShareOneSubscriberConnection() throws Exception {
        List<Lease> held = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            held.add(this.otherProcess.lock("shared-" + i).acquire(Duration.ZERO, null));
        }
        ExecutorService pool = Executors.newFixedThreadPool(10);
        try {
            List<Future<Lease>> waiters = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                String name = "shared-" + i;
                waiters.add(pool.submit(() -> this.turnstile.lock(name).acquire(Duration.ofSeconds(20), null)));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                try (Jedis jedis = redis.server().connect()) {
                    return jedis.pubsubNumSub(channels(10)).values().stream().allMatch(count -> count == 1L);
                }
            });
            assertThat(pubSubConnections()).isEqualTo(1);
            held.forEach(Lease::release);
            for (Future<Lease> waiter : waiters) {
                waiter.get().release();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void waiterDoesNotPollRedisWhileTheHolderWorks() throws Exception {
        Lease holder = this.otherProcess.lock("quiet").acquire(Duration.ZERO, Duration.ofSeconds(30));
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            long before = evalCalls();
            Future<Lease> waiter =
                    other.submit(() -> this.turnstile.lock("quiet").acquire(Duration.ofSeconds(10), null));
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> !waiter.isDone());
            long during = evalCalls() - before;
            // The safety-net backoff grows to 500 ms: about 10 tries in 2 s; a 10 ms poll would be 200.
            assertThat(during).isLessThan(20);
            holder.release();
            waiter.get().release();
        } finally {
            other.shutdownNow();
        }
    }

    @Test
    void badInputIsRejectedWithTheValueQuoted() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> this.turnstile.lock("  "))
                .withMessage("'name' must not be null or blank but was '  '");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> this.turnstile.lock((String) null))
                .withMessageContaining("was null");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> this.turnstile.lock(List.of()))
                .withMessageContaining("at least one lock name");
        NamedLock lock = this.turnstile.lock("input");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lock.tryAcquire(Duration.ofSeconds(-1), null))
                .withMessage("'wait' must be zero or positive but was PT-1S");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lock.tryAcquire(Duration.ZERO, Duration.ZERO))
                .withMessage("'leaseTime' must be positive but was PT0S");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Turnstile.builder(this.client).keyPrefix("a:"))
                .withMessageContaining("'keyPrefix'");
        try (Lease lease = lock.acquire(Duration.ZERO, null)) {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> lease.extend(Duration.ofSeconds(-5)))
                    .withMessage("'leaseTime' must be positive but was PT-5S");
        }
    }

    @Test
    void absurdDurationsAndEmptyHashTagsAreRejectedBeforeAnythingIsGranted() {
        NamedLock lock = this.turnstile.lock("huge");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lock.tryAcquire(Duration.ZERO, Duration.ofDays(365_000)))
                .withMessageContaining("at most 365 days");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lock.tryAcquire(Duration.ofSeconds(Long.MAX_VALUE), null))
                .withMessageContaining("'wait' must be at most 365 days");
        assertThat(this.client.exists("turnstile:lock:{huge}")).isFalse();
        assertThatIllegalArgumentException()
                .isThrownBy(() -> this.turnstile.lock("}x"))
                .withMessage("'name' must not start with '}' but was '}x'");
    }

    @Test
    void retriedAcquireWhoseReplyWasLostGetsItsOwnGrantWithANewToken() {
        java.util.List<String> keys = List.of("turnstile:lock:{retry}", "turnstile:fence:{retry}");
        java.util.List<String> args = List.of("owner-1", "30000", "60000");
        long first = LockScriptsAccess.acquire(this.client, keys, args);
        long retried = LockScriptsAccess.acquire(this.client, keys, args);
        long someoneElse = LockScriptsAccess.acquire(this.client, keys, List.of("owner-2", "30000", "60000"));
        assertThat(first).as("first grant's token").isPositive();
        assertThat(retried).as("the retry's token").isGreaterThan(first);
        assertThat(someoneElse).as("another owner's acquire").isZero();
    }

    /**
     * The counter's two paths in the acquire script: behind the clock, one {@code SET … GET} writes
     * the block above the clock; at or above it, a second {@code SET} moves the block above the
     * counter and keeps the counter for as long as it leads the clock. Either way the counter holds
     * the block's last token, written as an integer.
     */
    @Test
    void aTokenContinuesAboveACounterAheadOfTheClockAndTheCounterLivesForItsLead() {
        String lockKey = "turnstile:lock:{ahead}";
        String fenceKey = "turnstile:fence:{ahead}";
        List<String> keys = List.of(lockKey, fenceKey);
        List<String> args = List.of("owner-1", "30000", "60000", "32");

        long before = serverMicros();
        long fresh = LockScriptsAccess.acquire(this.client, keys, args);
        assertThat(fresh).as("a fresh name's token: the server's clock").isBetween(before, serverMicros());
        assertThat(this.client.get(fenceKey))
                .as("the counter: the block's last token")
                .isEqualTo(Long.toString(fresh + 31));
        assertThat(this.client.pttl(fenceKey))
                .as("the counter's ttl, its lead rounded up")
                .isBetween(59_000L, 60_001L);

        this.client.del(lockKey);
        long ahead = serverMicros() + 5_000_000;
        this.client.set(fenceKey, Long.toString(ahead));
        long token = LockScriptsAccess.acquire(this.client, keys, args);
        assertThat(token).as("the token above a counter 5 s ahead of the clock").isEqualTo(ahead + 1);
        assertThat(this.client.get(fenceKey)).isEqualTo(Long.toString(ahead + 32));
        assertThat(this.client.pttl(fenceKey))
                .as("the counter's ttl plus its lead over the clock (about 5 s)")
                .isBetween(64_000L, 65_001L);
    }

    /**
     * Without the block's width the acquire reserves the default cohort's 32 tokens: a process with
     * the default lock cohort sends one argument fewer.
     */
    @Test
    void anAcquireWithoutTheBlocksWidthReservesTheDefaultCohortsBlock() {
        String fenceKey = "turnstile:fence:{default-block}";
        List<String> keys = List.of("turnstile:lock:{default-block}", fenceKey);
        long fresh = LockScriptsAccess.acquire(this.client, keys, List.of("owner-1", "30000", "60000"));
        assertThat(this.client.get(fenceKey))
                .as("the counter: the last of the default block of 32")
                .isEqualTo(Long.toString(fresh + 31));
        String otherFence = "turnstile:fence:{one-token}";
        long one = LockScriptsAccess.acquire(
                this.client,
                List.of("turnstile:lock:{one-token}", otherFence),
                List.of("owner-1", "30000", "60000", "1"));
        assertThat(this.client.get(otherFence)).as("a block of 1").isEqualTo(Long.toString(one));
    }

    private static long serverMicros() {
        try (Jedis connection = redis.server().connect()) {
            List<String> time = connection.time();
            return Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
        }
    }

    @Test
    void aReleaseCountsTheWaitersOnItsChannelNotAClientSubscribedToAPattern() throws Exception {
        JedisPubSub everything = new JedisPubSub() {};
        JedisPubSub waiter = new JedisPubSub() {};
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Jedis monitorConnection = redis.server().connect();
                Jedis waiterConnection = redis.server().connect()) {
            // A monitoring tool that hears everything: PUBLISH counts it, but it waits for no lock
            // (counted, it would make the next local thread hold back for nobody).
            pool.submit(() -> monitorConnection.psubscribe(everything, "*"));
            await().atMost(Duration.ofSeconds(5)).until(everything::isSubscribed);
            assertThat(acquireAndRelease("told"))
                    .as("waiters told with only a pattern subscriber")
                    .isEqualTo(0L);

            pool.submit(() -> waiterConnection.subscribe(waiter, "turnstile:lock:{told}"));
            await().atMost(Duration.ofSeconds(5)).until(waiter::isSubscribed);
            assertThat(acquireAndRelease("told"))
                    .as("waiters told with one waiter and the pattern subscriber")
                    .isEqualTo(1L);
        } finally {
            if (everything.isSubscribed()) {
                everything.punsubscribe();
            }
            if (waiter.isSubscribed()) {
                waiter.unsubscribe();
            }
            pool.shutdown();
        }
    }

    /**
     * Runs the acquire script on lock {@code name} for owner-1, a refused acquire for owner-2 (which
     * marks the lock as wanted) and owner-1's release; returns what the release returned.
     */
    private Object acquireAndRelease(String name) {
        String key = "turnstile:lock:{" + name + "}";
        List<String> keys = List.of(key, "turnstile:fence:{" + name + "}");
        LockScriptsAccess.acquire(this.client, keys, List.of("owner-1", "30000", "60000"));
        assertThat(LockScriptsAccess.acquire(this.client, keys, List.of("owner-2", "30000", "60000")))
                .as("owner-2's acquire while owner-1 holds")
                .isZero();
        return LockScriptsAccess.release(this.client, List.of(key), List.of("owner-1"));
    }

    @Test
    void aReleasePublishesOnlyWhenAnAcquireWasRefusedWhileItsOwnerHeld() throws Exception {
        String key = "turnstile:lock:{wanted}";
        List<String> keys = List.of(key, "turnstile:fence:{wanted}");
        List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        JedisPubSub waiter = new JedisPubSub() {
            @Override
            public void onMessage(String channel, String message) {
                heard.add(message);
            }
        };
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Jedis waiterConnection = redis.server().connect()) {
            pool.submit(() -> waiterConnection.subscribe(waiter, key));
            await().atMost(Duration.ofSeconds(5)).until(waiter::isSubscribed);

            LockScriptsAccess.acquire(this.client, keys, List.of("owner-1", "30000", "60000"));
            assertThat(LockScriptsAccess.release(this.client, List.of(key), List.of("owner-1")))
                    .as("waiters told by a release nobody was refused during")
                    .isEqualTo(0L);
            // Messages on one channel arrive in order: once this one is heard, a release's would have been.
            this.client.publish(key, "after-the-unwanted-release");
            await().atMost(Duration.ofSeconds(5)).until(() -> !heard.isEmpty());
            assertThat(heard).as("heard on the lock's channel").containsExactly("after-the-unwanted-release");

            LockScriptsAccess.acquire(this.client, keys, List.of("owner-1", "30000", "60000"));
            for (int refused = 0; refused < 2; refused++) {
                assertThat(LockScriptsAccess.acquire(this.client, keys, List.of("owner-2", "30000", "60000")))
                        .as("owner-2's acquire while owner-1 holds")
                        .isZero();
            }
            assertThat(this.client.get(key))
                    .as("the holder's value, marked once")
                    .isEqualTo("owner-1+");
            assertThat(LockScriptsAccess.acquire(this.client, keys, List.of("owner-1", "30000", "60000")))
                    .as("owner-1's retried acquire finds its own, marked grant")
                    .isPositive();
            assertThat(this.client.get(key))
                    .as("the holder's value after its retry")
                    .isEqualTo("owner-1+");
            assertThat(LockScriptsAccess.release(this.client, List.of(key), List.of("owner-2")))
                    .as("owner-2's release of owner-1's marked grant")
                    .isEqualTo(-1L);
            assertThat(LockScriptsAccess.release(this.client, List.of(key), List.of("owner-1")))
                    .as("waiters told by the release of a wanted lock")
                    .isEqualTo(1L);
            await().atMost(Duration.ofSeconds(5)).until(() -> heard.size() == 2);
            assertThat(heard).last().as("the wanted release's signal").isEqualTo("free");
            assertThat(this.client.exists(key))
                    .as("the lock key after its release")
                    .isFalse();
        } finally {
            if (waiter.isSubscribed()) {
                waiter.unsubscribe();
            }
            pool.shutdown();
        }
    }

    /**
     * A grant taken by a thread that waited is born marked as wanted: where one waiter was, others
     * may be, and only a marked grant's release tells them. A first try's grant is unmarked.
     */
    @Test
    void aGrantTakenAfterWaitingIsMarkedAsWantedAndAFirstTrysIsNot() throws Exception {
        String key = "turnstile:lock:{waited}";
        Turnstile other = Turnstile.builder(this.client).build();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Lease held = this.turnstile.lock("waited").acquire(Duration.ZERO, Duration.ofSeconds(30));
            assertThat(this.client.get(key)).as("a first try's grant").doesNotEndWith("+");
            Future<Lease> waiter =
                    pool.submit(() -> other.lock("waited").acquire(Duration.ofSeconds(10), Duration.ofSeconds(30)));
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> this.client.get(key).endsWith("+"));
            assertThat(held.release()).as("the holder's release").isTrue();
            Lease taken = waiter.get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(this.client.get(key))
                    .as("the grant of the thread that waited")
                    .endsWith("+");
            assertThat(taken.release())
                    .as("the waiter's release of its marked grant")
                    .isTrue();
            assertThat(this.client.exists(key)).as("the lock key after it").isFalse();
        } finally {
            pool.shutdownNow();
            other.close();
        }
    }

    /**
     * The releases that publish whether or not an acquire was refused: a forced release (the
     * holder's waiters may be any process's) and a release with a hold that is already over.
     */
    @Test
    void aForcedReleaseAndAReleaseAfterItsHoldPublishThoughNobodyWasRefused() throws Exception {
        List<String> heard = new CopyOnWriteArrayList<>();
        JedisPubSub listener = new JedisPubSub() {
            @Override
            public void onMessage(String channel, String message) {
                heard.add(channel + " " + message);
            }
        };
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Turnstile other = Turnstile.builder(this.client).build();
        try (Jedis listenerConnection = redis.server().connect()) {
            pool.submit(() -> listenerConnection.subscribe(
                    listener, "turnstile:lock:{forced-unwanted}", "turnstile:lock:{held-unwanted}"));
            await().atMost(Duration.ofSeconds(5)).until(() -> listener.getSubscribedChannels() == 2);

            Lease forced = this.turnstile.lock("forced-unwanted").acquire(Duration.ZERO, Duration.ofSeconds(30));
            assertThat(this.client.get("turnstile:lock:{forced-unwanted}"))
                    .as("the forced lock's value, never refused")
                    .doesNotEndWith("+");
            assertThat(other.lock("forced-unwanted").forceRelease()).containsExactly("forced-unwanted");
            await().atMost(Duration.ofSeconds(5)).until(() -> !heard.isEmpty());
            assertThat(heard).containsExactly("turnstile:lock:{forced-unwanted} free");
            assertThat(forced.release())
                    .as("the release of a force-released lease")
                    .isFalse();

            Lease held = this.turnstile.lock("held-unwanted").acquire(Duration.ZERO, Duration.ofSeconds(30));
            // The grant's time is at most the server's clock read after it: a hold of 1 ms from the
            // grant is over once the clock is past that reading by more than 1 ms.
            long afterGrant = serverMicros() / 1000;
            await().atMost(Duration.ofSeconds(5)).until(() -> serverMicros() / 1000 > afterGrant + 1);
            assertThat(held.releaseAfter(Duration.ofMillis(1)))
                    .as("release after a hold")
                    .isTrue();
            await().atMost(Duration.ofSeconds(5)).until(() -> heard.size() == 2);
            assertThat(heard).last().isEqualTo("turnstile:lock:{held-unwanted} free");
            assertThat(this.client.exists("turnstile:lock:{held-unwanted}"))
                    .as("the lock key once its hold was over")
                    .isFalse();
        } finally {
            if (listener.isSubscribed()) {
                listener.unsubscribe();
            }
            pool.shutdown();
            other.close();
        }
    }

    @Test
    void aHolderWhoseLockIsWantedStillExtendsItAndAForcedReleaseRecordsItsTokenUnmarked() {
        Turnstile other = Turnstile.builder(this.client).build();
        try {
            Lease lease = this.turnstile.lock("wanted-holder").acquire(Duration.ZERO, Duration.ofSeconds(30));
            assertThat(other.lock("wanted-holder").tryAcquire())
                    .as("another client's try")
                    .isEmpty();
            String value = this.client.get("turnstile:lock:{wanted-holder}");
            assertThat(value).as("the holder's value once wanted").endsWith("+");
            String owner = value.substring(0, value.length() - 1);
            lease.extend(Duration.ofSeconds(60));
            assertThat(this.client.pttl("turnstile:lock:{wanted-holder}"))
                    .as("the wanted lock's ttl after its owner extended it")
                    .isGreaterThan(30_000L);
            assertThat(new dev.turnstile.redis.inspect.LockInspector(this.client).heldLocks("turnstile"))
                    .as("the inspector's view of the wanted lock")
                    .anySatisfy(held -> {
                        assertThat(held.name()).isEqualTo("wanted-holder");
                        assertThat(held.owner()).isEqualTo(owner);
                    });
            assertThat(other.lock("wanted-holder").forceRelease())
                    .as("forced release")
                    .containsExactly("wanted-holder");
            assertThat(this.client.get("turnstile:released:{wanted-holder}"))
                    .as("the forced release's record of the owner")
                    .isEqualTo(owner);
            assertThat(lease.release())
                    .as("the release of a force-released lease")
                    .isFalse();
        } finally {
            other.close();
        }
    }

    @Test
    void closedTurnstileRefusesToAcquire() {
        Turnstile closed = Turnstile.builder(this.client).build();
        closed.close();
        assertThatThrownBy(() -> closed.lock("after-close").tryAcquire())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThat(this.client.exists("turnstile:lock:{after-close}")).isFalse();
    }

    @Test
    void namesWithBracesAndColonsKeepOneHashTag() {
        try (Lease lease = this.turnstile.lock("odd{name}:x").acquire(Duration.ZERO, null)) {
            assertThat(this.client.exists("turnstile:lock:{odd{name}:x}")).isTrue();
            assertThat(lease.name()).isEqualTo("odd{name}:x");
        }
    }

    private String[] channels(int count) {
        String[] channels = new String[count];
        for (int i = 0; i < count; i++) {
            channels[i] = "turnstile:lock:{shared-" + i + "}";
        }
        return channels;
    }

    private long pubSubConnections() {
        try (Jedis jedis = redis.server().connect()) {
            return jedis.clientList()
                    .lines()
                    .filter(line -> line.contains(" sub=") && !line.contains(" sub=0 "))
                    .count();
        }
    }

    private long evalCalls() {
        return redis.server().commandCounts().entrySet().stream()
                .filter(entry -> entry.getKey().startsWith("eval"))
                .mapToLong(java.util.Map.Entry::getValue)
                .sum();
    }

    @Test
    void aLeaseWithAPartOfAMillisecondIsNeverHeldAfterRedisExpiredItsKey() {
        // Redis keeps whole milliseconds: a 50.9 ms lease lives 50 ms in Redis, and so must isHeld().
        Duration lease = Duration.ofNanos(50_900_000);
        int heldAfterExpiry = 0;
        for (int run = 0; run < 20; run++) {
            Lease held = this.turnstile.lock("sub-ms").acquire(Duration.ofSeconds(1), lease);
            long giveUp = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            while (this.client.exists("turnstile:lock:{sub-ms}") && System.nanoTime() < giveUp) {}
            if (held.isHeld()) {
                heldAfterExpiry++;
            }
            held.close();
        }
        assertThat(heldAfterExpiry)
                .as("runs in which isHeld() outlived the key")
                .isZero();
    }

    @Test
    void aMultiKeyLockNeverReturnsALeaseWhoseFirstNameRanOutWhileTheSecondWasAwaited() {
        Lease second = this.otherProcess.lock("multi:b").acquire(Duration.ZERO, Duration.ofMillis(400));
        // multi:a is taken first with a fixed 150 ms lease; multi:b comes free only after 400 ms.
        Lease both = this.turnstile
                .lock(List.of("multi:a", "multi:b"))
                .acquire(Duration.ofSeconds(5), Duration.ofMillis(150));
        assertThat(both.isHeld()).as("every name of the returned lease is held").isTrue();
        assertThat(both.release()).isTrue();
        assertThat(second.release()).as("multi:b had expired").isFalse();
    }
}
