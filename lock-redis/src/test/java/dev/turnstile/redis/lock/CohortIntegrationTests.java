package dev.turnstile.redis.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseLostEvent;
import dev.turnstile.redis.NamedLock;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;

/**
 * The lock cohort: a grant passed between threads of one process without Redis, with fencing
 * tokens that still strictly increase in the order the holds happen, leases that stay honest, and
 * other processes that still get their turn.
 */
class CohortIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private UnifiedJedis client;
    private final List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
    private Turnstile turnstile;
    private ExecutorService threads;

    @BeforeEach
    void setUp() {
        this.client = redis.server().newClient(Duration.ofSeconds(5));
        // A long cohort age, so that a hold the test keeps for a while is still passed on.
        this.turnstile = Turnstile.builder(this.client)
                .defaultLease(Duration.ofSeconds(30))
                .lockCohort(32, Duration.ofSeconds(10))
                .listener(this.lost::add)
                .build();
        this.threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void tearDown() {
        this.threads.shutdownNow();
        this.turnstile.close();
        this.client.close();
    }

    @Test
    void sixteenThreadsInEachOfTwoJvmsHandOffLocallyWithExactCountsOrderedTokensAndFairShares() throws Exception {
        int perProcess = 4_000;
        ChildJvm child = redis.startChild(
                LockHolderMain.class,
                "count",
                Integer.toString(redis.server().port()),
                "cohort-counter",
                "16",
                Integer.toString(perProcess));
        child.awaitLineStartingWith("READY", Duration.ofSeconds(30));
        redis.server().resetStats();
        List<long[]> mine;
        try (Turnstile defaults = Turnstile.builder(this.client).build()) {
            child.send("go");
            mine = LockHolderMain.CounterWork.run(
                    defaults.lock("cohort-counter"), this.client, "counter", 16, perProcess);
            assertThat(defaults.diagnostics().localLockQueues())
                    .as("no local queue left behind")
                    .isZero();
        }
        child.awaitLineStartingWith("DONE", Duration.ofMinutes(3));
        long evals = evalCalls();
        List<long[]> theirs = new ArrayList<>();
        for (String line : child.lines()) {
            if (line.startsWith("INTERVAL ")) {
                String[] parts = line.split(" ");
                theirs.add(new long[] {Long.parseLong(parts[1]), Long.parseLong(parts[2]), Long.parseLong(parts[3])});
            }
        }

        assertThat(this.client.get("counter")).isEqualTo(Integer.toString(2 * perProcess));
        assertThat(theirs).hasSize(perProcess);
        List<long[]> holds = new ArrayList<>(mine);
        holds.addAll(theirs);
        holds.sort(Comparator.comparingLong(hold -> hold[0]));
        int passedOn = 0;
        for (int i = 1; i < holds.size(); i++) {
            long[] previous = holds.get(i - 1);
            long[] hold = holds.get(i);
            assertThat(hold[0])
                    .as("hold %d starts after hold %d ended", i, i - 1)
                    .isGreaterThanOrEqualTo(previous[1]);
            assertThat(hold[2])
                    .as("hold %d's fencing token is above the one before it", i)
                    .isGreaterThan(previous[2]);
            passedOn += hold[2] == previous[2] + 1 ? 1 : 0;
        }
        assertThat(passedOn).as("holds passed on within a process").isGreaterThan(holds.size() / 2);
        assertThat(evals).as("Redis scripts run for %d holds", holds.size()).isLessThan(holds.size() / 2);

        // Neither process starved while both were running (from the later first hold to the
        // earlier last one; the child got "go" first).
        long from = Math.max(
                mine.stream().mapToLong(h -> h[0]).min().orElseThrow(),
                theirs.stream().mapToLong(h -> h[0]).min().orElseThrow());
        long until = Math.min(
                mine.stream().mapToLong(h -> h[1]).max().orElseThrow(),
                theirs.stream().mapToLong(h -> h[1]).max().orElseThrow());
        long ownShare = mine.stream().filter(h -> h[0] >= from && h[1] <= until).count();
        long theirShare =
                theirs.stream().filter(h -> h[0] >= from && h[1] <= until).count();
        System.out.printf(
                "cohort split while both ran: %d here, %d in the child; %d scripts for %d holds%n",
                ownShare, theirShare, evals, holds.size());
        assertThat(ownShare).isGreaterThanOrEqualTo((ownShare + theirShare) / 4);
        assertThat(theirShare).isGreaterThanOrEqualTo((ownShare + theirShare) / 4);
    }

    @Test
    void aLeaseLostWhileOthersQueueIsNotPassedOnAndItsKeyIsFreedForTheNext() throws Exception {
        NamedLock lock = this.turnstile.lock("lost-in-cohort");
        Lease first = lock.acquire(Duration.ZERO, null); // watchdog: the key lives 30 s
        Future<Lease> shortLease = queueBehind(lock, Duration.ofMillis(300), 1);
        Future<Lease> next = queueBehind(lock, null, 2);
        first.release();
        Lease overrunning = shortLease.get(5, TimeUnit.SECONDS);
        assertThat(overrunning.fencingToken()).as("passed on: the next token").isEqualTo(first.fencingToken() + 1);
        assertThat(this.client.pttl("turnstile:lock:{lost-in-cohort}"))
                .as("the key still has the first holder's 30 s")
                .isGreaterThan(10_000L);

        // The 300 ms holder overruns: it is reported lost, and its key is freed for the next waiter
        // instead of blocking everyone for the rest of the 30 s.
        long overrunStart = System.nanoTime();
        Lease third = next.get(10, TimeUnit.SECONDS);
        Duration waited = Duration.ofNanos(System.nanoTime() - overrunStart);
        // The loss is told to the listeners right after the key is freed and the gate left.
        await().atMost(Duration.ofSeconds(2))
                .untilAsserted(() -> assertThat(this.lost)
                        .extracting(LeaseLostEvent::reason)
                        .containsExactly(LeaseLostEvent.Reason.LEASE_ELAPSED));
        assertThat(overrunning.isHeld()).isFalse();
        assertThat(third.isHeld()).isTrue();
        assertThat(third.fencingToken())
                .as("a fresh grant in Redis, not the lost one passed on")
                .isGreaterThan(overrunning.fencingToken() + 1);
        assertThat(waited).isLessThan(Duration.ofSeconds(5));
        assertThat(overrunning.release()).isFalse();
        assertThat(third.isHeld()).isTrue();
        assertThat(this.client.pttl("turnstile:lock:{lost-in-cohort}")).isBetween(1L, 30_000L);
        third.release();
        assertThat(lock.isLocked()).isFalse();
        assertThat(this.turnstile.diagnostics().localLockQueues())
                .as("no local queue is left behind")
                .isZero();
    }

    @Test
    void aPassedOnLeaseCountsFromTheKeysExpiryUntilItIsToppedUp() throws Exception {
        NamedLock lock = this.turnstile.lock("until-topped-up");
        Lease first = lock.acquire(Duration.ZERO, Duration.ofMillis(900));
        Future<Lease> longer = queueBehind(lock, Duration.ofSeconds(5), 1);
        // Redis frozen: the hand-off needs no Redis, but the top-up cannot reach it.
        redis.server().pause();
        try {
            first.release();
            Lease second = longer.get(5, TimeUnit.SECONDS);
            assertThat(second.fencingToken()).isEqualTo(first.fencingToken() + 1);
            assertThat(second.remaining())
                    .as("counts from the key's own expiry, the first holder's 900 ms")
                    .isLessThanOrEqualTo(Duration.ofMillis(900));
            await().atMost(Duration.ofSeconds(3)).until(() -> !second.isHeld());
            assertThat(this.lost)
                    .extracting(LeaseLostEvent::reason)
                    .containsExactly(LeaseLostEvent.Reason.LEASE_ELAPSED);
        } finally {
            redis.server().resume();
        }
    }

    @Test
    void aPassedOnLeaseIsToppedUpToItsOwnLeaseOffTheAcquiringPath() throws Exception {
        NamedLock lock = this.turnstile.lock("topped-up");
        Lease first = lock.acquire(Duration.ZERO, Duration.ofMillis(900));
        Future<Lease> longer = queueBehind(lock, Duration.ofSeconds(5), 1);
        first.release();
        Lease second = longer.get(5, TimeUnit.SECONDS);
        assertThat(second.fencingToken()).isEqualTo(first.fencingToken() + 1);
        await().atMost(Duration.ofSeconds(2)).until(() -> this.client.pttl("turnstile:lock:{topped-up}") > 2_000L);
        await().atMost(Duration.ofSeconds(1)).until(() -> second.remaining().compareTo(Duration.ofSeconds(3)) > 0);
        assertThat(second.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(5));
        assertThat(this.client.pttl("turnstile:lock:{topped-up}")).isLessThanOrEqualTo(5_000L);
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1_000));
        assertThat(second.isHeld()).as("held past the first holder's 900 ms").isTrue();
        assertThat(this.lost).isEmpty();
        assertThat(second.release()).isTrue();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void aHolderKilledInTheMiddleOfACohortGivesTheLockBackAfterItsLease() throws Exception {
        ChildJvm child = redis.startChild(
                LockHolderMain.class, "churn", Integer.toString(redis.server().port()), "killed-cohort", "8", "1500");
        child.awaitLineStartingWith("CHURNING", Duration.ofSeconds(30));
        long highest = Long.parseLong(
                child.awaitLineStartingWith("TOKEN", Duration.ofSeconds(10)).split(" ")[1]);
        child.kill();
        long killed = System.nanoTime();
        for (String line : child.lines()) {
            if (line.startsWith("TOKEN ")) {
                highest = Math.max(highest, Long.parseLong(line.split(" ")[1]));
            }
        }
        try (Lease after = this.turnstile.lock("killed-cohort").acquire(Duration.ofSeconds(10), null)) {
            Duration waited = Duration.ofNanos(System.nanoTime() - killed);
            assertThat(waited).as("back within the child's 1.5 s lease").isLessThan(Duration.ofMillis(1_500 + 1_000));
            assertThat(after.fencingToken())
                    .as("above every token the cohort handed out")
                    .isGreaterThan(highest);
        }
    }

    @Test
    void aProcessToldOfTheReleaseGetsTheFirstTryThoughItWakesSlowerThanTheNextLocalThread() throws Exception {
        String name = "courtesy";
        try (Turnstile withoutCohort = Turnstile.builder(this.client)
                        .lockCohort(1, Duration.ofMillis(20))
                        .build();
                UnifiedJedis elsewhereClient = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile elsewhere = Turnstile.builder(elsewhereClient).build()) {
            NamedLock lock = withoutCohort.lock(name);
            Lease first = lock.acquire(Duration.ZERO, null);
            Future<Lease> next = queueBehind(lock, null, 1);
            // Another process waits on the release channel; told of the release, it needs 2 ms to
            // wake up and try (a busy machine): well within the courtesy, far longer than the next
            // thread here needs to find the lock free.
            CompletableFuture<Optional<Lease>> theirTry = new CompletableFuture<>();
            JedisPubSub slowWaiter = slowWaiter(elsewhereClient, elsewhere, name, theirTry);
            refusedElsewhere(elsewhere, name);
            Optional<Lease> theirs = Optional.empty();
            try {
                first.release();
                theirs = theirTry.get(5, TimeUnit.SECONDS);
                assertThat(theirs)
                        .as("the process told of the release had its try before the next thread here")
                        .isPresent();
                assertThat(next).isNotDone();
            } finally {
                theirs.ifPresent(Lease::release);
                if (slowWaiter.isSubscribed()) {
                    slowWaiter.unsubscribe();
                }
            }
            Lease mine = next.get(5, TimeUnit.SECONDS);
            assertThat(mine.fencingToken()).isGreaterThan(theirs.orElseThrow().fencingToken());
            mine.release();
        }
    }

    /**
     * {@code lockCohort(1, …)} turns local hand-off off: a grant reserves no token for another
     * holder (the fencing counter stays at the token handed out), and a thread queued behind the
     * holder gets the lock from Redis, with the next token of the counter.
     */
    @Test
    void aCohortOfOneHolderReservesNoTokenAndPassesNothingLocally() throws Exception {
        String fence = "turnstile:fence:{cohort-of-one}";
        try (Turnstile single = Turnstile.builder(this.client)
                .lockCohort(1, Duration.ofMillis(20))
                .build()) {
            NamedLock lock = single.lock("cohort-of-one");
            Lease first = lock.acquire(Duration.ZERO, Duration.ofSeconds(5));
            assertThat(this.client.get(fence)).isEqualTo(Long.toString(first.fencingToken()));
            ExecutorService executor = Executors.newSingleThreadExecutor();
            try {
                Future<Lease> next = executor.submit(() -> lock.acquire(Duration.ofSeconds(5), Duration.ofSeconds(5)));
                await().pollDelay(Duration.ofMillis(100))
                        .atMost(Duration.ofSeconds(1))
                        .until(() -> !next.isDone());
                first.release();
                Lease second = next.get(5, TimeUnit.SECONDS);
                assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
                assertThat(this.client.get(fence))
                        .as("the counter is at the second holder's token: nothing was reserved for a local pass")
                        .isEqualTo(Long.toString(second.fencingToken()));
                second.release();
            } finally {
                executor.shutdownNow();
            }
        }
    }

    @Test
    void aPassedOnGrantTooShortToHoldGoesBackToRedisWithTheHeadStartForAProcessToldOfIt() throws Exception {
        String name = "late-wake";
        try (UnifiedJedis elsewhereClient = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile elsewhere = Turnstile.builder(elsewhereClient).build()) {
            NamedLock lock = this.turnstile.lock(name);
            // The other process waits before the lock is taken: the first message on the channel is
            // the grant's return, and the grant's 1 s is not spent on setting it up.
            CompletableFuture<Optional<Lease>> theirTry = new CompletableFuture<>();
            JedisPubSub slowWaiter = slowWaiter(elsewhereClient, elsewhere, name, theirTry);
            // The holder's fixed lease of 1 s may be passed on with 100 ms left; the next thread asks
            // for the default 30 s lease and wants 1 s of the grant: it gives the grant back to Redis.
            // It must do so before the grant expires in Redis (else nobody is told of its return):
            // passed on with as much of the second left as can be (under 950 ms, so surely under the
            // 1 s it wants), the next thread may be that much late to wake on a busy machine.
            Lease first = lock.acquire(Duration.ZERO, Duration.ofSeconds(1));
            refusedElsewhere(elsewhere, name);
            Future<Lease> next = queueBehind(lock, null, 1);
            await().atMost(Duration.ofSeconds(2)).until(() -> first.remaining().toMillis() < 950);
            Optional<Lease> theirs = Optional.empty();
            try {
                assertThat(first.release()).isTrue();
                theirs = theirTry.get(5, TimeUnit.SECONDS);
                assertThat(theirs)
                        .as("the process told of the grant's return had its try before the thread it was passed to")
                        .isPresent();
                assertThat(next).isNotDone();
            } finally {
                theirs.ifPresent(Lease::release);
                if (slowWaiter.isSubscribed()) {
                    slowWaiter.unsubscribe();
                }
            }
            Lease mine = next.get(5, TimeUnit.SECONDS);
            assertThat(mine.fencingToken()).isGreaterThan(theirs.orElseThrow().fencingToken());
            mine.release();
        }
    }

    /**
     * While no other client waits, a cohort reserves its next block in Redis before the one in use
     * runs out, so the lock does not go back to Redis every 32 holders: the counter is exact, tokens
     * strictly increase in hold order, and only the last holder releases in Redis (each release
     * publishes; a cohort that went back to Redis after each block would publish at least once per
     * 32 holds).
     */
    @Test
    void withNobodyElseWaitingACohortRenewsItsBlockInsteadOfGoingBackToRedis() throws Exception {
        int holds = 2_000;
        redis.server().resetStats();
        List<long[]> all = LockHolderMain.CounterWork.run(
                this.turnstile.lock("refilled"), this.client, "refilled-counter", 8, holds);
        long publishes = redis.server().commandCounts().getOrDefault("publish", 0L);

        assertThat(this.client.get("refilled-counter")).isEqualTo(Integer.toString(holds));
        all.sort(Comparator.comparingLong(hold -> hold[0]));
        for (int i = 1; i < all.size(); i++) {
            assertThat(all.get(i)[2])
                    .as("hold %d's fencing token is above the one before it", i)
                    .isGreaterThan(all.get(i - 1)[2]);
        }
        System.out.printf("%d holds in one process: %d releases published%n", holds, publishes);
        assertThat(publishes)
                .as("releases in Redis for %d holds of 8 threads (blocks of 32)", holds)
                .isLessThanOrEqualTo(holds / 32 / 2);
    }

    /**
     * A client that starts waiting while a cohort renews its blocks gets the lock after at most the
     * block in use and the one reserved before it was seen waiting (2 × 32 holders, counted from when
     * Redis counts its subscription, with a block of slack): the cohort's refill is refused once it
     * waits.
     */
    @Test
    void aClientThatStartsWaitingStopsTheRefillsAndGetsTheLockWithinTwoBlocks() throws Exception {
        String name = "refill-yields";
        Holders holders = new Holders(this.turnstile.lock(name));
        List<Long> starts = holders.starts;
        try (UnifiedJedis elsewhereClient = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile elsewhere = Turnstile.builder(elsewhereClient).build()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> starts.size() >= 500);
            // From when Redis counts the other client as waiting (its subscription is confirmed):
            // the refill that comes next is refused.
            String channel = "turnstile:lock:{" + name + "}";
            Future<Long> seenWaiting = this.threads.submit(() -> {
                while ((Long) this.client.eval(
                                "return redis.call('PUBSUB', 'NUMSUB', ARGV[1])[2]", List.of(), List.of(channel))
                        == 0) {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
                }
                return System.nanoTime();
            });
            long got;
            try (Lease theirs = elsewhere.lock(name).acquire(Duration.ofSeconds(10), null)) {
                got = System.nanoTime();
                assertThat(theirs.fencingToken()).isPositive();
            }
            long asked = seenWaiting.get(5, TimeUnit.SECONDS);
            holders.stop();
            long between = starts.stream()
                    .filter(start -> start > asked && start < got)
                    .count();
            System.out.printf("holds here while the other client waited: %d%n", between);
            assertThat(between)
                    .as("holds of this process while the other client waited")
                    .isLessThanOrEqualTo(3 * 32);
        } finally {
            holders.stop();
        }
    }

    /**
     * A client that polls without subscribing (a zero-wait try, as a scheduler's lock does) is seen
     * too: its refused try marks the holder's value as wanted, the next refill is refused, and the
     * cohort goes back to Redis (a release is published, as the value is marked) within its two
     * blocks.
     */
    @Test
    void aClientThatPollsWithoutSubscribingStopsTheRefills() throws Exception {
        String name = "refill-polled";
        Holders holders = new Holders(this.turnstile.lock(name));
        List<Long> starts = holders.starts;
        try (UnifiedJedis elsewhereClient = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile elsewhere = Turnstile.builder(elsewhereClient).build()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> starts.size() >= 500);
            // Polls until one try is refused (a try that finds the lock free between two holds
            // takes it and gives it back, and is not what this test is about).
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                redis.server().resetStats();
                Optional<Lease> polled = elsewhere.lock(name).tryAcquire(Duration.ZERO, null);
                polled.ifPresent(Lease::release);
                return polled.isEmpty();
            });
            await().atMost(Duration.ofSeconds(2))
                    .until(() -> redis.server().commandCounts().getOrDefault("publish", 0L) > 0);
        } finally {
            holders.stop();
        }
    }

    /** Eight threads holding {@code lock} in turn, each hold one {@code INCR}, until stopped. */
    private final class Holders {

        final List<Long> starts = new CopyOnWriteArrayList<>();
        private final java.util.concurrent.atomic.AtomicBoolean stopped =
                new java.util.concurrent.atomic.AtomicBoolean();
        private final List<Future<?>> workers = new ArrayList<>();

        Holders(NamedLock lock) {
            for (int t = 0; t < 8; t++) {
                this.workers.add(CohortIntegrationTests.this.threads.submit(() -> {
                    while (!this.stopped.get()) {
                        try (Lease lease = lock.acquire(Duration.ofSeconds(30), null)) {
                            this.starts.add(System.nanoTime());
                            CohortIntegrationTests.this.client.incr("holders-counter");
                        }
                    }
                    return null;
                }));
            }
        }

        void stop() throws Exception {
            this.stopped.set(true);
            for (Future<?> worker : this.workers) {
                worker.get(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * The other process's first try, refused, as every waiter's is before it waits for a signal: it
     * marks the grant as wanted, so the grant's release is published.
     */
    private static void refusedElsewhere(Turnstile elsewhere, String name) {
        assertThat(elsewhere.lock(name).tryAcquire(Duration.ZERO, null))
                .as("the other process's first try")
                .isEmpty();
    }

    /**
     * Another process waiting on the release channel of {@code name}: told of a release, it needs
     * 2 ms to wake up and try (a busy machine), then completes {@code theirTry} with what it got.
     * It tries once: the release of what it got may be published before its unsubscribe reaches
     * Redis, and a second try would take the lock again and keep it from the thread that waits next.
     */
    private JedisPubSub slowWaiter(
            UnifiedJedis client, Turnstile elsewhere, String name, CompletableFuture<Optional<Lease>> theirTry) {
        JedisPubSub waiter = new JedisPubSub() {
            @Override
            public void onMessage(String channel, String message) {
                if (theirTry.isDone()) {
                    return; // a later release (its own), heard before the unsubscribe took effect
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                try {
                    theirTry.complete(elsewhere.lock(name).tryAcquire(Duration.ZERO, null));
                } catch (RuntimeException e) {
                    theirTry.completeExceptionally(e);
                }
                unsubscribe();
            }
        };
        this.threads.submit(() -> client.subscribe(waiter, "turnstile:lock:{" + name + "}"));
        await().atMost(Duration.ofSeconds(5)).until(waiter::isSubscribed);
        return waiter;
    }

    /** Starts a thread that acquires {@code lock} for {@code lease}, once it queues as the {@code position}th waiter. */
    private Future<Lease> queueBehind(NamedLock lock, @org.jspecify.annotations.Nullable Duration lease, int position) {
        Future<Lease> waiter = this.threads.submit(() -> lock.acquire(Duration.ofSeconds(10), lease));
        awaitQueued(position);
        return waiter;
    }

    private void awaitQueued(int waiting) {
        await().atMost(Duration.ofSeconds(5)).until(() -> queuedThreads() >= waiting);
    }

    /** Threads of the pool parked in a gate. */
    private long queuedThreads() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(entry -> entry.getKey().getState() == Thread.State.TIMED_WAITING)
                .filter(entry -> Arrays.stream(entry.getValue())
                        .anyMatch(frame -> frame.getClassName().startsWith("dev.turnstile.redis.internal.LocalGates")))
                .count();
    }

    private long evalCalls() {
        java.util.Map<String, Long> counts = redis.server().commandCounts();
        return counts.getOrDefault("evalsha", 0L) + counts.getOrDefault("eval", 0L);
    }
}
