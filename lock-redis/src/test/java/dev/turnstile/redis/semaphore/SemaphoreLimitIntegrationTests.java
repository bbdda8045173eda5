package dev.turnstile.redis.semaphore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/** Hunts for more than N holders: two JVMs, a crashed holder, and clients with skewed clocks. */
class SemaphoreLimitIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void thirtyTwoThreadsInTwoJvmsNeverExceedTheLimitAndUseEverySlot() throws Exception {
        int cycles = 10_000;
        ChildJvm child = redis.startChild(
                SemaphoreWorkerMain.class, "cycle", port(), "partner-api", "5", "16", Integer.toString(cycles));
        child.awaitLineStartingWith("READY", Duration.ofSeconds(30));
        long parentMax;
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            child.send("go");
            parentMax = SemaphoreWorkerMain.HolderCount.cycle(
                    turnstile.semaphore("partner-api", 5), client, 16, cycles, null);
        }
        long childMax = Long.parseLong(
                child.awaitLineStartingWith("MAX", Duration.ofMinutes(3)).split(" ")[1]);
        child.awaitLineStartingWith("DONE", Duration.ofSeconds(10));

        assertThat(Math.max(parentMax, childMax))
                .as("most holders counted at once")
                .isEqualTo(5);
        assertThat(redis.server().client().get(SemaphoreWorkerMain.HolderCount.KEY))
                .isEqualTo("0");
    }

    @Test
    void permitsOfAKilledHolderComeBackAfterTheLeaseAndNotBefore() {
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(2));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            ChildJvm holder = redis.startChild(SemaphoreWorkerMain.class, "hold", port(), "crash", "3", "3", "1000");
            String[] acquired = holder.awaitLineStartingWith("ACQUIRED", Duration.ofSeconds(30))
                    .split(" ");
            long childSent = Long.parseLong(acquired[1]);
            long childReturned = Long.parseLong(acquired[2]);
            holder.kill();
            RedisSemaphore semaphore = turnstile.semaphore("crash", 3);
            for (int slot = 0; slot < 3; slot++) {
                Optional<Permit> permit = semaphore.tryAcquire(Duration.ofSeconds(10), Duration.ofSeconds(30));
                long acquiredAt = System.nanoTime();
                assertThat(permit).as("slot %d came back", slot).isPresent();
                assertThat(Duration.ofNanos(acquiredAt - childSent))
                        .as("slot %d not before the lease", slot)
                        .isGreaterThanOrEqualTo(Duration.ofMillis(998));
                // Every permit of the child expired within 1 s of its last acquire's return.
                assertThat(Duration.ofNanos(acquiredAt - childReturned))
                        .as("slot %d within one lease (1 s) plus 500 ms", slot)
                        .isLessThanOrEqualTo(Duration.ofMillis(1500));
            }
            assertThat(semaphore.tryAcquire()).isEmpty();
        }
    }

    @Test
    void clockSkewLetsTheBooksSemaphoreOverfillButNotRedisSemaphore() {
        int rounds = 200;
        AtomicLong realClock = new AtomicLong(1_000_000);
        UnifiedJedis client = redis.server().client();
        // Client A's clock runs 10 ms ahead of client B's; B calls 1 ms (real time) after A.
        BookSemaphore fast = new BookSemaphore(client, "book-sem", 1, 10_000, () -> realClock.get() + 10);
        BookSemaphore slow = new BookSemaphore(client, "book-sem", 1, 10_000, realClock::get);
        int overLimit = 0;
        int stolen = 0;
        for (int round = 0; round < rounds; round++) {
            String a = fast.acquire();
            realClock.addAndGet(1);
            String b = slow.acquire();
            if (a != null && b != null) {
                overLimit++;
            }
            if (a != null && !fast.stillHolds(a)) {
                stolen++;
            }
            releaseIfHeld(fast, a);
            releaseIfHeld(slow, b);
            realClock.addAndGet(50);
        }

        // RedisSemaphore, by real clients whose wall clocks disagree by two minutes: one JVM's clock
        // a minute ahead of this machine's, one's a minute behind, 8 threads each, on permits of a
        // 1 s lease. A semaphore judging expiry by a client's clock would let the fast client prune
        // every permit the others hold, and the slow client's permits would look expired to them.
        int limit = 3;
        ChildJvm ahead = startCyclingWithClockOffset(Duration.ofMinutes(1), limit);
        ChildJvm behind = startCyclingWithClockOffset(Duration.ofMinutes(-1), limit);
        long aheadBy = readyClockMillis(ahead) - System.currentTimeMillis();
        long behindBy = readyClockMillis(behind) - System.currentTimeMillis();
        assertThat(aheadBy)
                .as("the fast client's clock, ms ahead of this machine's")
                .isBetween(50_000L, 61_000L);
        assertThat(behindBy)
                .as("the slow client's clock, ms ahead of this machine's")
                .isBetween(-70_000L, -59_000L);
        ahead.send("go");
        behind.send("go");
        long turnstileMax = Math.max(maxHolders(ahead), maxHolders(behind));

        System.out.printf(
                "10 ms clock skew over %d rounds: book semaphore over the limit %d times, slot stolen %d times;"
                        + " RedisSemaphore with clients 2 min apart: at most %d holders of %d%n",
                rounds, overLimit, stolen, turnstileMax, limit);
        assertThat(overLimit)
                .as("book semaphore admitted two holders of one slot")
                .isEqualTo(rounds);
        assertThat(stolen)
                .as("book semaphore's first holder lost its slot by rank")
                .isEqualTo(rounds);
        assertThat(turnstileMax)
                .as("most RedisSemaphore holders at once, clients' clocks 2 min apart: every slot used, never more")
                .isEqualTo(limit);
        assertThat(client.get(SemaphoreWorkerMain.HolderCount.KEY)).isEqualTo("0");
    }

    /**
     * A JVM whose wall clock is {@code offset} from this one's, ready to cycle 1,500 permits of 1 s
     * of "turnstile-sem" on 8 threads.
     */
    private static ChildJvm startCyclingWithClockOffset(Duration offset, int limit) {
        return redis.startChildWithClockOffset(
                offset,
                SemaphoreWorkerMain.class,
                "cycle",
                port(),
                "turnstile-sem",
                Integer.toString(limit),
                "8",
                "1500",
                "1000");
    }

    /** The child's wall clock when it printed "READY", in ms since the epoch. */
    private static long readyClockMillis(ChildJvm child) {
        return Long.parseLong(
                child.awaitLineStartingWith("READY", Duration.ofSeconds(30)).split(" ")[1]);
    }

    private static long maxHolders(ChildJvm child) {
        long max = Long.parseLong(
                child.awaitLineStartingWith("MAX", Duration.ofMinutes(3)).split(" ")[1]);
        child.awaitLineStartingWith("DONE", Duration.ofSeconds(10));
        return max;
    }

    private static void releaseIfHeld(BookSemaphore semaphore, String id) {
        if (id != null) {
            semaphore.release(id);
        }
    }

    private static String port() {
        return Integer.toString(redis.server().port());
    }
}
