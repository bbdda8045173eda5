package dev.turnstile.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.test.redis.RedisServerExtension;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.UnifiedJedis;

/**
 * What the fencing counter's inline issue writes, on a real server, for clocks chosen by the test:
 * the block's last token exactly, as a plain decimal (a zero-padded microsecond, a block that
 * crosses into the next second, a round number), and the counter's ttl.
 */
class FencingCounterIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final String FENCE = "turnstile:fence:{counter}";

    /** {@link FencingCounter#ISSUE} on a given clock; returns the first token. */
    private static final LuaScript ISSUE_ON_CLOCK = LuaScript.of("""
            local fence_key, reserve, block_ttl, clock = KEYS[1], ARGV[1], ARGV[2], {ARGV[3], ARGV[4]}
            """ + FencingCounter.ISSUE + """
            return token
            """);

    private final UnifiedJedis client = redis.server().client();

    @BeforeEach
    void startEmpty() {
        this.client.del(FENCE);
    }

    private long issue(int reserve, long ttlMillis, String seconds, String micros) {
        return (Long) ISSUE_ON_CLOCK.run(
                this.client,
                List.of(FENCE),
                List.of(Integer.toString(reserve), FencingCounter.blockTtlMillis(ttlMillis, reserve), seconds, micros));
    }

    @ParameterizedTest(name = "{0} µs past {1} s, {2} tokens")
    @CsvSource({
        "5, 1796376700, 32, 1796376700000005, 1796376700000036",
        "0, 1796376700, 1, 1796376700000000, 1796376700000000",
        "999968, 1796376700, 32, 1796376700999968, 1796376700999999",
        "999969, 1796376700, 32, 1796376700999969, 1796376701000000",
        "999999, 1796376799, 1000, 1796376799999999, 1796376800000998",
    })
    void aFreshCounterHoldsTheBlocksLastTokenAsAPlainNumber(
            String micros, String seconds, int reserve, long first, String counter) {
        assertThat(issue(reserve, 35_000, seconds, micros)).isEqualTo(first);
        assertThat(this.client.get(FENCE)).isEqualTo(counter);
        long ttl = 35_000 + (reserve - 1 + 999) / 1000;
        assertThat(this.client.pttl(FENCE)).isBetween(ttl - 2_000, ttl);
    }

    @Test
    void everyDigitOfTheBlockIsWrittenInItsPlaceForMicrosecondsAcrossTheWholeSecond() {
        Random random = new Random(42);
        for (int i = 0; i < 2_000; i++) {
            int reserve = new int[] {1, 2, 32, 1000}[i % 4];
            int micros = i < 1_000 ? i * 997 % 1_000_000 : random.nextInt(1_000_000);
            long seconds = 1_796_376_700L + i;
            long first = seconds * 1_000_000 + micros;
            this.client.del(FENCE);
            assertThat(issue(reserve, 35_000, Long.toString(seconds), Integer.toString(micros)))
                    .isEqualTo(first);
            assertThat(this.client.get(FENCE))
                    .as("%d µs past %d s, %d tokens", micros, seconds, reserve)
                    .isEqualTo(Long.toString(first + reserve - 1));
        }
    }

    @Test
    void aCounterAheadOfTheClockIsContinuedAndLivesAsLongAsItLeads() {
        this.client.set(FENCE, "1796376700500000");
        assertThat(issue(32, 35_000, "1796376700", "5")).isEqualTo(1796376700500001L);
        assertThat(this.client.get(FENCE)).isEqualTo("1796376700500032");
        // 35 s after the clock reaches the block's last token, 500,027 µs ahead: 501 ms more.
        assertThat(this.client.pttl(FENCE)).isBetween(35_501L - 2_000, 35_501L);
    }

    @Test
    void theBlocksTtlCoversItsWidthInWholeMilliseconds() {
        assertThat(FencingCounter.blockTtlMillis(35_000, 1)).isEqualTo("35000");
        assertThat(FencingCounter.blockTtlMillis(35_000, 2)).isEqualTo("35001");
        assertThat(FencingCounter.blockTtlMillis(35_000, 1001)).isEqualTo("35001");
        assertThat(FencingCounter.blockTtlMillis(35_000, 1002)).isEqualTo("35002");
    }
}
