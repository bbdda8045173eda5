package dev.turnstile.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.sample.benchmark.MarketBenchmark;
import dev.turnstile.sample.benchmark.RunResult;
import dev.turnstile.sample.market.Markets;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** A short run of the book's benchmark: the table's shape, not its times. */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = "spring.data.redis.jedis.pool.max-active=64")
class MarketBenchmarkTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @DynamicPropertySource
    static void redisProperties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", () -> "127.0.0.1");
        registry.add("spring.data.redis.port", () -> redis.server().port());
    }

    @Autowired
    Markets markets;

    @Autowired
    DataRedisConnectionDetails redisDetails;

    @Test
    void watchRetriesGrowWithContentionLocksNeverRetryAndFineGrainedBeatsOneLock() throws Exception {
        List<RunResult> results = new MarketBenchmark(this.markets, this.redisDetails).runAll(Duration.ofMillis(1500));

        assertThat(results).hasSize(9);
        RunResult watchOneOne = find(results, 1, 1, "watch");
        RunResult watchFiveFive = find(results, 5, 5, "watch");
        assertThat(watchFiveFive.retries())
                .as("WATCH retries under 5/5 contention")
                .isPositive();
        assertThat(watchFiveFive.retries() / watchFiveFive.seconds())
                .as("retries per second grow with contention")
                .isGreaterThan(watchOneOne.retries() / watchOneOne.seconds());
        for (RunResult result : results) {
            if (!result.strategy().equals("watch")) {
                assertThat(result.retries()).as("%s retries", result).isZero();
            }
        }
        RunResult lock = find(results, 5, 5, "lock");
        RunResult fine = find(results, 5, 5, "fine");
        assertThat(fine.bought())
                .as("fine-grained buys more than one market lock")
                .isGreaterThan(lock.bought());
        assertThat(find(results, 5, 5, "fine").bought())
                .as("locks beat WATCH under contention")
                .isGreaterThan(watchFiveFive.bought());
    }

    private static RunResult find(List<RunResult> results, int listers, int buyers, String strategy) {
        return results.stream()
                .filter(r -> r.listers() == listers
                        && r.buyers() == buyers
                        && r.strategy().equals(strategy))
                .findFirst()
                .orElseThrow();
    }
}
