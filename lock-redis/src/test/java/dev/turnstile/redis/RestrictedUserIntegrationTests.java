package dev.turnstile.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.semaphore.Permit;
import dev.turnstile.test.redis.RedisClients;
import dev.turnstile.test.redis.RedisServer;
import dev.turnstile.test.redis.RedisServerExtension;
import dev.turnstile.test.redis.RestrictedRedisUser;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisAccessControlException;

/**
 * What the contract suites do not reach, as the README's restricted Redis user: the operator's
 * calls (is it locked, force-release, the health check, the inspector), grants that wait for a
 * replica ({@code minReplicas}), and that the user really is restricted.
 */
class RestrictedUserIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private UnifiedJedis restricted;

    @BeforeEach
    void setUp() {
        RestrictedRedisUser.createOn(redis.server());
        try (Jedis admin = redis.server().connect()) {
            admin.aclLogReset();
        }
        this.restricted = RestrictedRedisUser.connect(redis.server());
    }

    @AfterEach
    void tearDown() {
        this.restricted.close();
    }

    @Test
    void theUserReachesOnlyKeysAndChannelsUnderThePrefixAndNoAdministration() {
        assertThat(this.restricted.ping()).isEqualTo("PONG");
        assertThatThrownBy(() -> this.restricted.get("session:1"))
                .isInstanceOf(JedisAccessControlException.class)
                .hasMessageContaining("NOPERM");
        assertThatThrownBy(() -> this.restricted.publish("orders", "x"))
                .isInstanceOf(JedisAccessControlException.class)
                .hasMessageContaining("NOPERM");
        assertThatThrownBy(() -> this.restricted.flushAll())
                .isInstanceOf(JedisAccessControlException.class)
                .hasMessageContaining("NOPERM");
        assertThatThrownBy(() -> this.restricted.keys("*"))
                .isInstanceOf(JedisAccessControlException.class)
                .hasMessageContaining("NOPERM");
    }

    @Test
    void operatorCallsWork() {
        try (Turnstile turnstile = Turnstile.builder(this.restricted).build()) {
            Lease lease = turnstile.lock("item:42").acquire(Duration.ZERO, null);
            Permit permit = turnstile.semaphore("account:7", 2).acquire(Duration.ZERO, null);
            assertThat(turnstile.lock("item:42").isLocked()).isTrue();
            assertThat(turnstile.diagnostics().health().up()).isTrue();
            assertThat(turnstile.diagnostics().heldLocks())
                    .extracting(held -> held.name())
                    .containsExactly("item:42");
            assertThat(turnstile.diagnostics().semaphores())
                    .extracting(state -> state.name())
                    .containsExactly("account:7");
            assertThat(turnstile.lock("item:42").forceRelease()).containsExactly("item:42");
            assertThat(lease.release()).isFalse();
            assertThat(permit.release()).isTrue();
            // A forced release frees the lock after the lock cohort's longest age (20 ms), not at once.
            await().atMost(Duration.ofSeconds(2))
                    .untilAsserted(() ->
                            assertThat(turnstile.lock("item:42").isLocked()).isFalse());
        }
    }

    @Test
    void grantsThatWaitForAReplicaWork() {
        RedisServer replica = redis.startServer(builder -> builder.arguments(
                "--replicaof", "127.0.0.1", Integer.toString(redis.server().port())));
        RestrictedRedisUser.createOn(replica);
        try (Turnstile turnstile = Turnstile.builder(this.restricted)
                // Generous: this is about what the user may run (WAIT), not how fast a busy machine acknowledges.
                .minReplicas(1, Duration.ofSeconds(5))
                .build()) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> redis.server().client().info("replication").contains("state=online")
                            && replica.client().info("replication").contains("master_link_status:up"));
            try (Lease lease = turnstile.lock("replicated").acquire(Duration.ZERO, null)) {
                assertThat(lease.isHeld()).isTrue();
                lease.extend(Duration.ofSeconds(10));
            }
            try (Permit permit = turnstile.semaphore("replicated-sem", 1).acquire(Duration.ZERO, null)) {
                assertThat(permit.isHeld()).isTrue();
            }
        }
    }

    @Test
    void aWaiterInAnotherProcessSubscribesToTheReleaseAndLeavesTheChannelAfter() throws Exception {
        try (Turnstile holder = Turnstile.builder(this.restricted).build();
                Turnstile waiter = Turnstile.builder(this.restricted).build();
                Jedis admin = redis.server().connect()) {
            Lease held = holder.lock("signalled").acquire(Duration.ZERO, null);
            CompletableFuture<Lease> next =
                    CompletableFuture.supplyAsync(() -> waiter.lock("signalled").acquire(Duration.ofSeconds(30), null));
            await().atMost(Duration.ofSeconds(5))
                    .until(
                            () -> admin.pubsubNumSub("turnstile:lock:{signalled}")
                                    .get("turnstile:lock:{signalled}"),
                            count -> count == 1L);
            held.release();
            try (Lease lease = next.get(5, TimeUnit.SECONDS)) {
                assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
            }
            await().atMost(Duration.ofSeconds(5))
                    .until(
                            () -> admin.pubsubNumSub("turnstile:lock:{signalled}")
                                    .get("turnstile:lock:{signalled}"),
                            count -> count == 0L);
            assertThat(admin.aclLog()).as("nothing was refused to the user").isEmpty();
        }
    }

    @Test
    void aRefusedReleaseSaysWhatToGrantAndTheLockStillExpires() {
        RestrictedRedisUser.createOn(
                redis.server(),
                "no-del",
                RestrictedRedisUser.rulesFor(redis.server()).replace(" +del", ""));
        try (UnifiedJedis lacking = RestrictedRedisUser.connect(redis.server(), "no-del");
                Turnstile turnstile = Turnstile.builder(lacking).build()) {
            Lease lease = turnstile.lock("undeletable").acquire(Duration.ZERO, Duration.ofSeconds(1));
            assertThatThrownBy(lease::release)
                    .isInstanceOf(TurnstileException.class)
                    .hasMessageContaining("release lock 'undeletable'")
                    .hasMessageContaining("to the user Turnstile connects as")
                    .hasMessageContaining("A Redis user for Turnstile");
            assertThat(redis.server().client().pttl("turnstile:lock:{undeletable}"))
                    .as("the refused release left the lock with its time to live")
                    .isBetween(1L, 1_000L);
            assertThat(turnstile.lock("undeletable").tryAcquire(Duration.ofSeconds(3), Duration.ofSeconds(1)))
                    .as("free again once it expired")
                    .isPresent();
        }
    }

    /**
     * A holder's release reads the forced-release marker only when it found the lock gone, in a call
     * of its own: when that call fails (here a user that may not read the marker), the loss is still
     * reported, as an expiry, and the release still answers false.
     */
    @Test
    void aReleaseThatCannotReadTheForcedReleaseMarkerStillReportsTheLoss() {
        RestrictedRedisUser.createOn(
                redis.server(),
                "no-marker",
                RestrictedRedisUser.rulesFor(redis.server())
                        .replace("resetkeys ~turnstile:*", "resetkeys ~turnstile:lock:* ~turnstile:fence:*"));
        try (UnifiedJedis lacking = RestrictedRedisUser.connect(redis.server(), "no-marker");
                Turnstile turnstile = Turnstile.builder(lacking).build()) {
            assertThatThrownBy(() -> lacking.get("turnstile:released:{gone}"))
                    .as("the user may not read the marker")
                    .isInstanceOf(JedisAccessControlException.class);
            Lease lease = turnstile.lock("gone").acquire(Duration.ZERO, Duration.ofSeconds(30));
            List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
            lease.onLost(lost::add);
            redis.server().client().del("turnstile:lock:{gone}");
            assertThat(lease.release()).as("the release of a lock that is gone").isFalse();
            assertThat(lost)
                    .singleElement()
                    .extracting(LeaseLostEvent::reason)
                    .isEqualTo(LeaseLostEvent.Reason.EXPIRED_IN_REDIS);
        }
    }

    @Test
    void aGrantWrittenBeforeARefusedCommandIsFreedNotLeftForItsLease() {
        // The acquire script sets the lock key, then reads the server's clock: a user without TIME
        // gets the key written and the script failed.
        RestrictedRedisUser.createOn(
                redis.server(),
                "no-time",
                RestrictedRedisUser.rulesFor(redis.server()).replace(" +time", ""));
        try (UnifiedJedis lacking = RestrictedRedisUser.connect(redis.server(), "no-time");
                Turnstile misconfigured = Turnstile.builder(lacking).build();
                Turnstile configured = Turnstile.builder(this.restricted).build()) {
            assertThatThrownBy(() -> misconfigured.lock("half-written").tryAcquire(Duration.ZERO, null))
                    .isInstanceOf(TurnstileException.class)
                    .hasMessageContaining("acquire lock 'half-written'")
                    .hasMessageContaining("A Redis user for Turnstile");
            assertThat(redis.server().client().exists("turnstile:lock:{half-written}"))
                    .as("the half-written grant was freed")
                    .isFalse();
            assertThat(configured.lock("half-written").tryAcquire(Duration.ZERO, null))
                    .as("a correctly configured client gets it at once, not after the 30 s lease")
                    .isPresent()
                    .get()
                    .satisfies(Lease::release);
        }
    }

    @Test
    void aUserRefusedReleaseSignalsStillGetsTheLockByPollingAndIsWarnedOnce() throws Exception {
        RestrictedRedisUser.createOn(
                redis.server(),
                "no-signals",
                RestrictedRedisUser.rulesFor(redis.server()).replace(" +subscribe", ""));
        PrintStream stderr = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
        try (UnifiedJedis lacking = RestrictedRedisUser.connect(redis.server(), "no-signals");
                Turnstile holder = Turnstile.builder(this.restricted).build();
                Turnstile polling = Turnstile.builder(lacking).build()) {
            Lease held = holder.lock("unsignalled").acquire(Duration.ZERO, null);
            CompletableFuture<Lease> next = CompletableFuture.supplyAsync(
                    () -> polling.lock("unsignalled").acquire(Duration.ofSeconds(30), null));
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> log.toString(StandardCharsets.UTF_8).contains("Redis refuses release signals"));
            held.release();
            try (Lease lease = next.get(10, TimeUnit.SECONDS)) {
                assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
            }
        } finally {
            System.setErr(stderr);
        }
        String logged = log.toString(StandardCharsets.UTF_8);
        assertThat(logged.split("Redis refuses release signals", -1))
                .as("warned once, though the connection was refused again and again")
                .hasSize(2);
        assertThat(logged).contains("WARN").contains("A Redis user for Turnstile");
    }

    @Test
    void aWrongPasswordSaysToCheckTheCredentials() {
        try (UnifiedJedis wrong = RedisClients.standalone(
                        redis.server().hostAndPort(),
                        DefaultJedisClientConfig.builder()
                                .user(RestrictedRedisUser.NAME)
                                .password("wrong")
                                .build());
                Turnstile turnstile = Turnstile.builder(wrong).build()) {
            assertThatThrownBy(() -> turnstile.lock("item:42").tryAcquire())
                    .isInstanceOf(TurnstileException.class)
                    .hasMessageContaining("Redis refused the credentials Turnstile connects with")
                    .hasMessageContaining("WRONGPASS")
                    .hasMessageContaining("spring.data.redis.password");
        }
    }

    @Test
    void theReadmeGivesExactlyThisUser() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        assertThat(readme)
                .contains(RestrictedRedisUser.setUserCommand())
                .contains(RestrictedRedisUser.addCommand(RestrictedRedisUser.SHARDED_PUBSUB_RULES))
                .contains(RestrictedRedisUser.addCommand(RestrictedRedisUser.CLIENT_SETINFO_RULES));
    }
}
