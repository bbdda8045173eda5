package dev.turnstile.test.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.SetParams;

class RedisServerIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aShiftedClockMovesTimeScriptsAndKeyExpiryButNotTheMachines() {
        RedisServer server = redis.startServer(RedisServer.Builder::shiftableClock);
        UnifiedJedis client = server.client();
        server.shiftClock(Duration.ofHours(1));
        assertThat(server.timeMillis() - System.currentTimeMillis()).isBetween(3_590_000L, 3_610_000L);
        Object scriptClock = client.eval("return redis.call('TIME')[1]");
        assertThat(Long.parseLong((String) scriptClock) - System.currentTimeMillis() / 1000)
                .isBetween(3_590L, 3_610L);
        client.set("short", "v", SetParams.setParams().px(60_000));
        client.set("long", "v", SetParams.setParams().px(600_000));
        server.shiftClock(Duration.ofHours(1).plusMinutes(5));
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(client.get("short"))
                        .as("expired by the shifted clock")
                        .isNull());
        assertThat(client.get("long")).isEqualTo("v");
        server.shiftClock(Duration.ofSeconds(-30));
        assertThat(System.currentTimeMillis() - server.timeMillis()).isBetween(25_000L, 35_000L);
        assertThat(client.pttl("long"))
                .as("a clock stepped back lengthens a key's life")
                .isGreaterThan(600_000);
        assertThat(Math.abs(redis.server().timeMillis() - System.currentTimeMillis()))
                .as("another server keeps the machine's clock")
                .isLessThan(1_000);
    }

    @Test
    void serverRunsOnAFreePortThatIsNotTheDefault() {
        assertThat(redis.server().port()).isNotEqualTo(6379);
        assertThat(redis.server().client().ping()).isEqualTo("PONG");
    }

    @Test
    void killedServerRestartsOnTheSamePortWithoutItsData() {
        RedisServer server = redis.server();
        int port = server.port();
        server.client().set("k", "v");
        server.kill();
        assertThat(server.isRunning()).isFalse();
        server.restart();
        assertThat(server.port()).isEqualTo(port);
        assertThat(server.client().get("k")).isNull();
    }

    @Test
    void portsAreChosenBelowTheRangeOutgoingConnectionsTakeTheirsFromSoARestartFindsItsPortFree() {
        int firstEphemeral = RedisProcesses.firstEphemeralPort();
        assumeTrue(firstEphemeral >= 21_000, "the outgoing connections' range leaves no room below it");
        for (int i = 0; i < 200; i++) {
            assertThat(RedisProcesses.freePort())
                    .isBetween(10_000, firstEphemeral - 1)
                    .isNotEqualTo(6379);
            int node = RedisServer.freeClusterPort();
            assertThat(node + 10_000).isBetween(20_000, firstEphemeral - 1);
        }
        assertThat(redis.server().port()).isLessThan(firstEphemeral);
    }

    @Test
    void aFreePortTakenByAnotherServerMeanwhileIsGivenUpForAnotherAndTheOtherIsNotTouched() {
        RedisServer other = redis.server();
        other.client().set("owner", "other");
        int[] offered = {other.port(), RedisProcesses.freePort()};
        int[] next = {0};
        try (RedisServer server =
                RedisServer.builder().ports(() -> offered[next[0]++]).start()) {
            assertThat(server.port()).isEqualTo(offered[1]);
            assertThat(server.pid()).isNotEqualTo(other.pid());
            assertThat(server.client().get("owner")).isNull();
        }
        assertThat(other.client().get("owner")).isEqualTo("other");
    }

    @Test
    void aPortAskedForThatAnotherServerHoldsFailsNamingIt() {
        RedisServer other = redis.server();
        assertThatThrownBy(() -> RedisServer.builder().port(other.port()).start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("could not use port " + other.port());
        assertThat(other.client().ping()).isEqualTo("PONG");
    }

    @Test
    void persistentServerKeepsItsDataAcrossARestart() {
        try (RedisServer server = RedisServer.builder().persistent(true).start()) {
            server.client().set("k", "v");
            server.restart();
            assertThat(server.client().get("k")).isEqualTo("v");
        }
    }

    @Test
    void pausedServerAnswersNothingUntilResumed() {
        RedisServer server = redis.server();
        try (UnifiedJedis client = server.newClient(Duration.ofMillis(300))) {
            client.ping();
            server.pause();
            try {
                assertThatThrownBy(client::ping).isInstanceOf(JedisException.class);
            } finally {
                server.resume();
            }
            assertThat(client.ping()).isEqualTo("PONG");
        }
    }

    @Test
    void eachServerIsIndependentAndFlushTouchesOnlyItself() {
        RedisServer other = redis.startServer(builder -> builder);
        other.client().set("mine", "1");
        redis.server().client().set("theirs", "1");
        redis.server().flushAll();
        assertThat(redis.server().client().exists("theirs")).isFalse();
        assertThat(other.client().get("mine")).isEqualTo("1");
    }

    @Test
    void commandCountsReflectTheCallsMade() {
        RedisServer server = redis.server();
        server.resetStats();
        for (int i = 0; i < 3; i++) {
            server.client().incr("n");
        }
        assertThat(server.commandCounts()).containsEntry("incr", 3L);
    }

    @Test
    void childJvmCanBeKilled() {
        ChildJvm child = redis.startChild(SleeperMain.class);
        child.awaitLineStartingWith("SLEEPING", Duration.ofSeconds(30));
        child.kill();
        assertThat(child.awaitExit(Duration.ofSeconds(5))).isEqualTo(137);
    }

    /** A child that waits to be killed. */
    public static final class SleeperMain {
        public static void main(String[] args) throws Exception {
            System.out.println("SLEEPING");
            new java.util.concurrent.CountDownLatch(1).await(60, java.util.concurrent.TimeUnit.SECONDS);
        }
    }
}
