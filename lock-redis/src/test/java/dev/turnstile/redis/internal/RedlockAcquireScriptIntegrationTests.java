package dev.turnstile.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/** What one Redlock master answers to a proposed fencing token, on a real server. */
class RedlockAcquireScriptIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final List<String> KEYS = List.of("turnstile:lock:{script}", "turnstile:fence:{script}");

    private UnifiedJedis client;

    @BeforeEach
    void connect() {
        redis.server().flushAll();
        this.client = redis.server().newClient(Duration.ofSeconds(2));
    }

    @AfterEach
    void close() {
        this.client.close();
    }

    private long serverMicros() {
        List<String> time;
        try (redis.clients.jedis.Jedis jedis = redis.server().connect()) {
            time = jedis.time();
        }
        return Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
    }

    private List<?> propose(String owner, long leaseMillis, String fenceTtlMillis, long token) {
        return (List<?>) LockScripts.REDLOCK_ACQUIRE.run(
                this.client,
                KEYS,
                List.of(
                        owner,
                        Long.toString(leaseMillis),
                        fenceTtlMillis,
                        Long.toString(token),
                        RedlockLock.ALLOWANCE));
    }

    @Test
    void aMasterTakesOnlyATokenAboveItsCounterAndSaysTheLeastItWouldTake() {
        long first = serverMicros();
        assertThat((Object) propose("a", 10_000, "20000", first).subList(0, 2)).isEqualTo(List.of(1L, first));
        assertThat(this.client.get(KEYS.get(1))).isEqualTo(Long.toString(first));
        this.client.del(KEYS.get(0));
        assertThat((Object) propose("b", 10_000, "20000", first))
                .as("the same token again")
                .isEqualTo(List.of(2L, first + 1));
        assertThat(this.client.exists(KEYS.get(0)))
                .as("nothing written when too low")
                .isFalse();
        assertThat(propose("b", 10_000, "20000", first + 1).get(0)).isEqualTo(1L);
        assertThat(propose("c", 10_000, "20000", first + 2).get(0))
                .as("held by b")
                .isEqualTo(0L);
    }

    @Test
    void withNoCounterATokenUpToTheAllowanceBelowTheClockIsTakenAndNoLower() {
        long now = serverMicros();
        assertThat(propose("a", 10_000, "20000", now - 500_000).get(0))
                .as("half a second behind, within the 1 s allowance")
                .isEqualTo(1L);
        this.client.del(KEYS.toArray(String[]::new));
        assertThat(propose("b", 10_000, "20000", now - 5_000_000).get(0))
                .as("5 s behind")
                .isEqualTo(2L);
    }

    @Test
    void aCounterShorterLivedThanTheAllowanceIsKeptLongerSoNoLowerTokenGetsInAfterItExpired() {
        // Lease 100 ms plus 1 ms of retention: the counter lives that plus the 1 s allowance plus
        // 1 ms, so a master's clock must step back by more than lease plus retention, as on one
        // server, before a token below it gets in.
        long first = serverMicros();
        assertThat(propose("a", 100, "101", first).get(0)).isEqualTo(1L);
        assertThat(this.client.pttl(KEYS.get(1)))
                .as("the counter's ttl plus the allowance")
                .isGreaterThan(1_050L);
        this.client.del(KEYS.get(0));
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(5))
                .until(() -> !this.client.exists(KEYS.get(1)));
        // A client whose clock is 0.5 s behind proposes a token below the one handed out.
        List<?> reply = propose("b", 100, "101", first - 500_000);
        assertThat(reply.get(0))
                .as("refused: the allowance is below the counter's life")
                .isEqualTo(2L);
        assertThat((Long) reply.get(1)).isGreaterThan(first);
    }

    @Test
    void aMasterWithNoCounterKeepsTheLeastItNamedSoTheNextRoundIsTakenHoweverItsClockMoved() {
        long now = serverMicros();
        List<?> reply = propose("a", 10_000, "20000", now - 5_000_000);
        assertThat(reply.get(0)).as("5 s behind").isEqualTo(2L);
        long least = (Long) reply.get(1);
        assertThat(this.client.exists(KEYS.get(0))).as("no lock written").isFalse();
        assertThat(this.client.get(KEYS.get(1))).as("the least recorded").isEqualTo(Long.toString(least - 1));
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // the master's clock moves on
        assertThat((Object) propose("a", 10_000, "20000", least).subList(0, 2))
                .as("the least named, offered later")
                .isEqualTo(List.of(1L, least));
        this.client.del(KEYS.get(0));
        assertThat(propose("b", 10_000, "20000", least).get(0))
                .as("never the same token twice")
                .isEqualTo(2L);
    }
}
