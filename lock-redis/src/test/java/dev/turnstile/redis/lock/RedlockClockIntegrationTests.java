package dev.turnstile.redis.lock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.redis.Lease;
import dev.turnstile.test.redis.RedisServer;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * Redlock over three masters whose wall clocks are shifted ahead of this client's and behind it
 * (an {@code LD_PRELOAD} library moves their {@code TIME} and key expiry): names fresh and used are
 * acquired within the wait, tokens keep increasing, and no two holders overlap.
 */
class RedlockClockIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final List<RedisServer> masters = new ArrayList<>();
    private final List<UnifiedJedis> clients = new ArrayList<>();

    @BeforeEach
    void startMasters() {
        if (masters.isEmpty()) {
            for (int i = 0; i < 3; i++) {
                masters.add(redis.startServer(RedisServer.Builder::shiftableClock));
            }
        }
        for (RedisServer master : masters) {
            if (!master.isRunning()) {
                master.restart();
            }
            master.shiftClock(Duration.ZERO);
            master.flushAll();
            this.clients.add(master.newClient(Duration.ofSeconds(2)));
        }
    }

    @AfterEach
    void closeClients() {
        this.clients.forEach(UnifiedJedis::close);
    }

    private Redlock redlock() {
        return Redlock.builder(this.clients)
                .nodeTimeout(Duration.ofMillis(200))
                .retryDelay(Duration.ofMillis(20))
                .fenceRetention(Duration.ofSeconds(1))
                .build();
    }

    /** Shifts each master's clock by its offset. */
    private static void shift(Duration... offsets) {
        for (int i = 0; i < offsets.length; i++) {
            masters.get(i).shiftClock(offsets[i]);
        }
    }

    /**
     * Acquires five fresh names, then each again (a used name), with a short wait, and returns the
     * tokens in order; asserts each was acquired.
     */
    private static List<Long> freshAndUsedNames(Redlock redlock, String prefix) {
        List<Long> tokens = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 5; i++) {
                String name = prefix + i;
                Optional<Lease> lease = redlock.lock(name).tryAcquire(Duration.ofSeconds(2), Duration.ofSeconds(5));
                assertThat(lease).as("'%s', round %d", name, round).isPresent();
                tokens.add(lease.get().fencingToken());
                assertThat(lease.get().release()).isTrue();
            }
        }
        for (int i = 0; i < 5; i++) {
            assertThat(tokens.get(5 + i))
                    .as("the used name's token is above its first")
                    .isGreaterThan(tokens.get(i));
        }
        return tokens;
    }

    @Test
    void mastersAheadOfTheClientBySecondsOrAnHourGrantFreshAndUsedNames() {
        try (Redlock redlock = redlock()) {
            shift(Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(5));
            freshAndUsedNames(redlock, "ahead-5s-");
            shift(Duration.ofHours(1), Duration.ofHours(1), Duration.ofHours(1));
            freshAndUsedNames(redlock, "ahead-1h-");
            shift(Duration.ofSeconds(5), Duration.ofMinutes(30), Duration.ofHours(1));
            freshAndUsedNames(redlock, "ahead-apart-");
        }
    }

    @Test
    void mastersBehindTheClientBySecondsOrAnHourGrantFreshAndUsedNames() {
        try (Redlock redlock = redlock()) {
            shift(Duration.ofSeconds(-5), Duration.ofSeconds(-5), Duration.ofSeconds(-5));
            freshAndUsedNames(redlock, "behind-5s-");
            shift(Duration.ofHours(-1), Duration.ofHours(-1), Duration.ofHours(-1));
            freshAndUsedNames(redlock, "behind-1h-");
            shift(Duration.ofHours(-1), Duration.ZERO, Duration.ofHours(1));
            freshAndUsedNames(redlock, "apart-");
        }
    }

    @Test
    void withOneMasterDownAndAnotherAheadAMajorityStillGrants() {
        try (Redlock redlock = redlock()) {
            shift(Duration.ofSeconds(5), Duration.ZERO);
            masters.get(2).stop();
            freshAndUsedNames(redlock, "one-down-5s-");
            shift(Duration.ofHours(1), Duration.ZERO);
            freshAndUsedNames(redlock, "one-down-1h-");
            shift(Duration.ZERO, Duration.ofHours(1));
            freshAndUsedNames(redlock, "one-down-other-");
        }
    }

    @Test
    void holdersOnMastersWhoseClocksDisagreeNeverOverlapAndTokensIncrease() throws Exception {
        shift(Duration.ofHours(1), Duration.ofSeconds(-5), Duration.ofSeconds(3));
        List<Redlock> processes = List.of(redlock(), redlock());
        ExecutorService threads = Executors.newFixedThreadPool(8);
        AtomicInteger inside = new AtomicInteger();
        AtomicBoolean overlapped = new AtomicBoolean();
        List<Long> tokens = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger count = new AtomicInteger();
        try {
            List<Future<?>> work = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                Redlock process = processes.get(t % 2);
                work.add(threads.submit(() -> {
                    for (int i = 0; i < 15; i++) {
                        try (Lease lease =
                                process.lock("shared").acquire(Duration.ofSeconds(20), Duration.ofSeconds(5))) {
                            if (inside.incrementAndGet() > 1) {
                                overlapped.set(true);
                            }
                            // recorded in the order the holders held it: inside the lock
                            tokens.add(lease.fencingToken());
                            count.incrementAndGet();
                            inside.decrementAndGet();
                        }
                        if (i == 7 && process == processes.get(0)) {
                            // clocks move while holders run: one master jumps back, another ahead
                            masters.get(1).shiftClock(Duration.ofHours(-1));
                            masters.get(2).shiftClock(Duration.ofMinutes(10));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> each : work) {
                each.get();
            }
        } finally {
            threads.shutdownNow();
            processes.forEach(Redlock::close);
        }
        assertThat(overlapped).as("two holders at once").isFalse();
        assertThat(count).hasValue(120);
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token %d after %d", i, i - 1).isGreaterThan(tokens.get(i - 1));
        }
    }
}
