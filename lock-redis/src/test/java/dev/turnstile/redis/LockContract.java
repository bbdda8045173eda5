package dev.turnstile.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * The lock's contract, independent of the deployment: each subclass runs every test against its
 * own kind of Redis (one server, a cluster), unchanged.
 */
public abstract class LockContract {

    /** Lost leases heard by {@link #turnstile}'s listener. */
    protected final List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
    /** A client of the deployment under test. */
    protected UnifiedJedis client;
    /** The Turnstile under test (default lease 3 s). */
    protected Turnstile turnstile;
    /** Another instance: its waiters contend in Redis, not in this instance's local queue. */
    protected Turnstile otherProcess;

    private final List<Lease> kept = new ArrayList<>();

    /** The client the Turnstiles under test use: {@link #client} unless a subclass connects another. */
    protected UnifiedJedis turnstileClient;

    /** Returns a new client of the deployment under test; closed after each test. */
    protected abstract UnifiedJedis connect();

    /**
     * Returns the client the Turnstiles under test use (closed after each test unless it is {@code
     * client} itself); by default {@code client}, which the tests also use to read and write Redis.
     */
    protected UnifiedJedis connectTurnstile(UnifiedJedis client) {
        return client;
    }

    @BeforeEach
    void setUpContract() {
        this.client = connect();
        this.turnstileClient = connectTurnstile(this.client);
        this.turnstile = Turnstile.builder(this.turnstileClient)
                .defaultLease(Duration.ofSeconds(3))
                .listener(this.lost::add)
                .build();
        this.otherProcess = Turnstile.builder(this.turnstileClient).build();
    }

    @AfterEach
    void tearDownContract() {
        this.kept.forEach(Lease::close);
        this.turnstile.close();
        this.otherProcess.close();
        if (this.turnstileClient != this.client) {
            this.turnstileClient.close();
        }
        this.client.close();
    }

    private Lease keep(Lease lease) {
        this.kept.add(lease);
        return lease;
    }

    @Test
    void acquireCreatesLockKeyWithTtlAndReleaseDeletesIt() {
        try (Lease lease = this.turnstile.lock("item:42").acquire(Duration.ZERO, Duration.ofSeconds(10))) {
            assertThat(lease.isHeld()).isTrue();
            assertThat(this.client.pttl("turnstile:lock:{item:42}")).isBetween(1L, 10_000L);
            assertThat(Long.parseLong(this.client.get("turnstile:fence:{item:42}")))
                    .as("the counter is at the last token reserved for this grant's cohort of 32 holders")
                    .isEqualTo(lease.fencingToken() + 31);
            assertThat(this.client.pttl("turnstile:fence:{item:42}")).isPositive();
        }
        assertThat(this.client.exists("turnstile:lock:{item:42}")).isFalse();
        assertThat(this.client.exists("turnstile:fence:{item:42}"))
                .as("a release never deletes the fencing counter")
                .isTrue();
    }

    @Test
    void watchdogLeaseKeyAlsoHasTtl() {
        try (Lease lease = this.turnstile.lock("ttl").acquire(Duration.ZERO, null)) {
            assertThat(this.client.pttl("turnstile:lock:{ttl}")).isBetween(1L, 3_000L);
            assertThat(lease.remaining()).isPositive();
        }
    }

    @Test
    void secondAcquireIsRefusedWhileHeld() {
        NamedLock lock = this.turnstile.lock("busy");
        try (Lease first = lock.acquire(Duration.ZERO, null)) {
            assertThat(lock.tryAcquire()).isEmpty();
            assertThat(lock.isLocked()).isTrue();
            assertThatThrownBy(() -> lock.acquire(Duration.ofMillis(50), null))
                    .isInstanceOfSatisfying(
                            LockAcquisitionException.class,
                            e -> assertThat(e.isInterrupted())
                                    .as("a timeout is not an interrupt")
                                    .isFalse())
                    .hasMessageContaining("'busy'");
        }
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void secondAcquireWaitsUntilRelease() throws Exception {
        NamedLock lock = this.turnstile.lock("handoff");
        Lease first = lock.acquire(Duration.ZERO, null);
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            Future<Lease> waiter =
                    other.submit(() -> this.turnstile.lock("handoff").acquire(Duration.ofSeconds(10), null));
            await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> !waiter.isDone());
            first.release();
            Lease second = waiter.get();
            assertThat(second.isHeld()).isTrue();
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
            second.release();
        } finally {
            other.shutdownNow();
        }
    }

    @Test
    void releaseIsIdempotentAndOwnerChecked() {
        NamedLock lock = this.turnstile.lock("idem");
        Lease lease = lock.acquire(Duration.ZERO, Duration.ofSeconds(5));
        assertThat(lease.release()).isTrue();
        assertThat(lease.release()).isFalse();
        lease.close();
        assertThat(lease.isHeld()).isFalse();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void releaseAfterKeepsTheLockUntilTheHoldHasPassedSinceTheGrantThenItExpires() {
        NamedLock lock = this.turnstile.lock("report:daily");
        long before = System.nanoTime();
        Lease lease = lock.acquire(Duration.ZERO, null); // watchdog lease; the hold is counted from the grant
        assertThat(lease.releaseAfter(Duration.ofMillis(600))).isTrue();
        assertThat(lease.isHeld()).isFalse();
        assertThat(this.client.pttl("turnstile:lock:{report:daily}"))
                .as("the key now lives for the rest of the hold, counted from the grant by the server")
                .isBetween(1L, 600L);
        assertThat(this.otherProcess.lock("report:daily").tryAcquire()).isEmpty();
        // Nothing renews it: it expires by itself when the hold is over, not a lease later.
        await().atMost(Duration.ofSeconds(2)).until(() -> !lock.isLocked());
        assertThat(Duration.ofNanos(System.nanoTime() - before)).isGreaterThanOrEqualTo(Duration.ofMillis(600));
        try (Lease next = this.otherProcess.lock("report:daily").acquire(Duration.ZERO, null)) {
            assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
        }
        assertThat(this.lost).isEmpty();
    }

    @Test
    void releaseAfterAHoldThatHasAlreadyPassedFreesAtOnceAndZeroIsRelease() {
        NamedLock lock = this.turnstile.lock("held-long-enough");
        Lease lease = lock.acquire(Duration.ZERO, Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(2)).until(() -> lease.remaining().compareTo(Duration.ofMillis(4_900)) < 0);
        assertThat(lease.releaseAfter(Duration.ofMillis(50))).isTrue();
        assertThat(lock.isLocked()).isFalse();
        Lease again = lock.acquire(Duration.ZERO, Duration.ofSeconds(5));
        assertThat(again.releaseAfter(Duration.ZERO)).isTrue();
        assertThat(lock.isLocked()).isFalse();
        assertThat(again.releaseAfter(Duration.ofSeconds(5)))
                .as("already released")
                .isFalse();
        assertThat(lock.isLocked()).isFalse();
        assertThatThrownBy(() -> lock.acquire(Duration.ZERO, null).releaseAfter(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holdAtLeast");
    }

    @Test
    void releaseAfterNeverHoldsALostLeaseNorTouchesTheNextOwner() {
        NamedLock lock = this.turnstile.lock("lost-hold");
        Lease stale = lock.acquire(Duration.ZERO, Duration.ofMillis(100));
        await().atMost(Duration.ofSeconds(2)).until(() -> !stale.isHeld());
        await().atMost(Duration.ofSeconds(2)).until(() -> !lock.isLocked());
        Lease next = keep(this.otherProcess.lock("lost-hold").acquire(Duration.ZERO, Duration.ofSeconds(5)));
        assertThat(stale.releaseAfter(Duration.ofMinutes(5))).isFalse();
        assertThat(this.client.pttl("turnstile:lock:{lost-hold}"))
                .as("the next owner's key keeps its own TTL")
                .isBetween(1L, 5_000L);
        assertThat(next.isHeld()).isTrue();
    }

    @Test
    void staleHolderCannotReleaseOrExtendTheNextOwnersLock() {
        NamedLock lock = this.turnstile.lock("stale");
        Lease stale = lock.acquire(Duration.ZERO, Duration.ofMillis(200));
        await().atMost(Duration.ofSeconds(5))
                .until(() -> lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(30))
                        .map(this::keep)
                        .isPresent());
        Lease current = this.kept.get(0);
        String currentOwner = this.client.get("turnstile:lock:{stale}");

        assertThat(stale.isHeld()).isFalse();
        assertThat(stale.release()).isFalse();
        assertThatThrownBy(() -> stale.extend(Duration.ofSeconds(60))).isInstanceOf(LockLostException.class);

        assertThat(this.client.get("turnstile:lock:{stale}")).isEqualTo(currentOwner);
        assertThat(this.client.pttl("turnstile:lock:{stale}")).isBetween(1L, 30_000L);
        assertThat(current.isHeld()).isTrue();
        assertThat(current.fencingToken()).isGreaterThan(stale.fencingToken());
        current.release();
    }

    @Test
    void elapsedLeaseIsReportedLostAndExtendNeverRecreatesTheKey() {
        Lease lease = this.turnstile.lock("elapsed").acquire(Duration.ZERO, Duration.ofMillis(150));
        List<LeaseLostEvent> own = new CopyOnWriteArrayList<>();
        lease.onLost(own::add);
        await().atMost(Duration.ofSeconds(5)).until(() -> !own.isEmpty());
        assertThat(own).singleElement().satisfies(event -> {
            assertThat(event.reason()).isEqualTo(LeaseLostEvent.Reason.LEASE_ELAPSED);
            assertThat(event.name()).isEqualTo("elapsed");
            assertThat(event.fencingToken()).isEqualTo(lease.fencingToken());
        });
        assertThat(this.lost).extracting(LeaseLostEvent::name).containsExactly("elapsed");
        assertThat(lease.isHeld()).isFalse();
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(5)))
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("'elapsed'");
        // The loss is reported at the local deadline, which comes before Redis's (the lease is counted
        // from the send); the key then expires on its own and the refused extend never set it again.
        await().atMost(Duration.ofSeconds(2)).until(() -> !this.client.exists("turnstile:lock:{elapsed}"));
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(5))).isInstanceOf(LockLostException.class);
        assertThat(this.client.exists("turnstile:lock:{elapsed}")).isFalse();
        List<LeaseLostEvent> late = new ArrayList<>();
        lease.onLost(late::add);
        assertThat(late).as("a listener added after the loss hears it at once").hasSize(1);
    }

    @Test
    void extendRenewsTheTtlOfAHeldLease() {
        try (Lease lease = this.turnstile.lock("extend").acquire(Duration.ZERO, Duration.ofSeconds(1))) {
            lease.extend(Duration.ofSeconds(60));
            assertThat(this.client.pttl("turnstile:lock:{extend}")).isGreaterThan(30_000L);
            assertThat(lease.remaining()).isGreaterThan(Duration.ofSeconds(30));
        }
    }

    @Test
    void extendFindsATakenOverLockAndReportsIt() {
        Lease lease = this.turnstile.lock("taken").acquire(Duration.ZERO, Duration.ofSeconds(30));
        this.client.set("turnstile:lock:{taken}", "someone-else");
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(30)))
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("another owner");
        assertThat(this.lost).extracting(LeaseLostEvent::reason).containsExactly(LeaseLostEvent.Reason.TAKEN_OVER);
        assertThat(this.client.get("turnstile:lock:{taken}")).isEqualTo("someone-else");
        assertThat(lease.release()).isFalse();
        assertThat(this.client.get("turnstile:lock:{taken}")).isEqualTo("someone-else");
    }

    @Test
    void aReleaseThatFindsTheGrantForceReleasedReportsTheLossOnce() {
        for (Duration hold : List.of(Duration.ZERO, Duration.ofSeconds(5))) {
            String name = "forced-" + hold.toMillis();
            Lease lease = this.turnstile.lock(name).acquire(Duration.ZERO, null);
            List<LeaseLostEvent> own = new CopyOnWriteArrayList<>();
            lease.onLost(own::add);
            assertThat(this.otherProcess.lock(name).forceRelease()).containsExactly(name);
            // Released before the watchdog's next renewal (a third of the 3 s lease) could notice.
            assertThat(lease.releaseAfter(hold)).as("held %s", hold).isFalse();
            assertThat(own).singleElement().satisfies(event -> {
                assertThat(event.reason()).isEqualTo(LeaseLostEvent.Reason.FORCE_RELEASED);
                assertThat(event.fencingToken()).isEqualTo(lease.fencingToken());
            });
            assertThat(this.lost).extracting(LeaseLostEvent::name).containsOnlyOnce(name);
            assertThat(lease.isHeld()).isFalse();
            assertThat(lease.release())
                    .as("a second release reports nothing more")
                    .isFalse();
            assertThat(own).hasSize(1);
        }
    }

    @Test
    void anExtensionThatFindsTheGrantForceReleasedSaysAnOperatorReleasedIt() {
        Lease lease = this.turnstile.lock("forced-extend").acquire(Duration.ZERO, null);
        assertThat(this.otherProcess.lock("forced-extend").forceRelease()).containsExactly("forced-extend");
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(30)))
                .isInstanceOfSatisfying(
                        LockLostException.class,
                        lost -> assertThat(lost.reason()).isEqualTo(LeaseLostEvent.Reason.FORCE_RELEASED))
                .hasMessageContaining("released by an operator");
        assertThat(this.lost).extracting(LeaseLostEvent::reason).containsExactly(LeaseLostEvent.Reason.FORCE_RELEASED);
        // The next owner's grant is its own: its release finds nothing forced.
        try (Lease next = this.otherProcess.lock("forced-extend").acquire(Duration.ofSeconds(5), null)) {
            assertThat(next.isHeld()).isTrue();
        }
        assertThat(this.lost).hasSize(1);
    }

    @Test
    void aGrantDeletedByHandIsToldApartFromAForcedRelease() {
        Lease lease = this.turnstile.lock("deleted").acquire(Duration.ZERO, null);
        this.client.del("turnstile:lock:{deleted}");
        assertThat(lease.release()).isFalse();
        assertThat(this.lost)
                .extracting(LeaseLostEvent::reason)
                .containsExactly(LeaseLostEvent.Reason.EXPIRED_IN_REDIS);
    }

    @Test
    void multiKeyLockIsAllOrNothingAndRollsBack() {
        Lease blocker = this.turnstile.lock("b").acquire(Duration.ZERO, null);
        Optional<Lease> all = this.turnstile.lock(List.of("c", "a", "b")).tryAcquire(Duration.ZERO, null);
        assertThat(all).isEmpty();
        assertThat(this.client.exists("turnstile:lock:{a}")).as("rolled back").isFalse();
        assertThat(this.client.exists("turnstile:lock:{c}")).as("never taken").isFalse();
        blocker.release();

        try (Lease lease = this.turnstile.lock(List.of("c", "a", "b")).acquire(Duration.ZERO, null)) {
            assertThat(lease.names()).containsExactly("a", "b", "c");
            assertThat(lease.fencingTokens()).containsOnlyKeys("a", "b", "c");
            assertThatThrownBy(lease::fencingToken).isInstanceOf(IllegalStateException.class);
            assertThat(lease.isHeld()).isTrue();
        }
        for (String name : List.of("a", "b", "c")) {
            assertThat(this.client.exists("turnstile:lock:{" + name + "}")).isFalse();
        }
    }

    @Test
    void locksTakenInOppositeOrdersNeverDeadlock() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<Integer>> rounds = new ArrayList<>();
            for (List<String> order : List.of(List.of("x", "y"), List.of("y", "x"))) {
                rounds.add(pool.submit(() -> {
                    for (int i = 0; i < 200; i++) {
                        try (Lease lease = this.turnstile.lock(order).acquire(Duration.ofSeconds(10), null)) {
                            assertThat(lease.isHeld()).isTrue();
                        }
                    }
                    return 200;
                }));
            }
            for (Future<Integer> round : rounds) {
                assertThat(round.get()).isEqualTo(200);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void interruptStopsTheWaitAndLeavesNothingBehind() throws Exception {
        Lease holder = this.turnstile.lock("intr").acquire(Duration.ZERO, null);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<Boolean> flagKept = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            started.countDown();
            try {
                this.turnstile.lock("intr").acquire(Duration.ofSeconds(30), null);
            } catch (RuntimeException e) {
                failure.set(e);
                flagKept.set(Thread.currentThread().isInterrupted());
            }
        });
        waiter.start();
        started.await();
        await().atMost(Duration.ofSeconds(5)).until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
        waiter.interrupt();
        waiter.join(5000);
        assertThat(failure.get())
                .isInstanceOfSatisfying(
                        LockAcquisitionException.class,
                        e -> assertThat(e.isInterrupted()).isTrue())
                .hasMessageContaining("Interrupted");
        assertThat(flagKept.get()).isTrue();
        holder.release();
        assertThat(this.client.exists("turnstile:lock:{intr}")).isFalse();
        try (Lease again = this.turnstile.lock("intr").acquire(Duration.ofSeconds(1), null)) {
            assertThat(again.isHeld()).as("the local queue was left").isTrue();
        }
    }

    @Test
    void aGrantThatRacedAnInterruptIsReleasedNotHandedOut() {
        // The thread is interrupted before it asks: the grant comes, and the interrupt wins.
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> this.turnstile.lock("raced").tryAcquire(Duration.ZERO, null))
                    .isInstanceOfSatisfying(
                            LockAcquisitionException.class,
                            e -> assertThat(e.isInterrupted()).isTrue());
            assertThat(Thread.currentThread().isInterrupted())
                    .as("the interrupt is kept")
                    .isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(this.client.exists("turnstile:lock:{raced}"))
                .as("the raced grant was released")
                .isFalse();
        try (Lease again = this.turnstile.lock("raced").acquire(Duration.ZERO, null)) {
            assertThat(again.isHeld())
                    .as("nothing is left in the local queue either")
                    .isTrue();
        }
    }

    @Test
    void interruptedThreadCanStillRelease() {
        Lease lease = this.turnstile.lock("release-interrupted").acquire(Duration.ZERO, null);
        Thread.currentThread().interrupt();
        try {
            assertThat(lease.release()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(this.client.exists("turnstile:lock:{release-interrupted}")).isFalse();
    }

    @Test
    void leaseCanBeReleasedFromAnotherThread() throws Exception {
        Lease lease = this.turnstile.lock("cross-thread").acquire(Duration.ZERO, null);
        assertThat(CompletableFuture.supplyAsync(lease::release).get()).isTrue();
        try (Lease again = this.turnstile.lock("cross-thread").acquire(Duration.ofSeconds(1), null)) {
            assertThat(again.isHeld()).isTrue();
        }
    }

    @Test
    void fencingTokensStrictlyIncreaseAcrossReleaseExpiryAndCounterExpiry() {
        Turnstile shortFence = Turnstile.builder(this.turnstileClient)
                .defaultLease(Duration.ofMillis(300))
                .fenceRetention(Duration.ofMillis(100))
                .build();
        try {
            NamedLock lock = shortFence.lock("fence");
            long first = lock.acquire(Duration.ZERO, Duration.ofMillis(50)).fencingToken();
            long afterExpiry;
            try (Lease lease = lock.acquire(Duration.ofSeconds(5), null)) {
                afterExpiry = lease.fencingToken();
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> !this.client.exists("turnstile:fence:{fence}"));
            long afterCounterExpired;
            try (Lease lease = lock.acquire(Duration.ZERO, null)) {
                afterCounterExpired = lease.fencingToken();
            }
            assertThat(afterExpiry).isGreaterThan(first);
            assertThat(afterCounterExpired).isGreaterThan(afterExpiry);
        } finally {
            shortFence.close();
        }
    }

    @Test
    void aCounterAheadOfTheServerClockIsContinuedAndKeptUntilTheClockHasPassedIt() {
        // As after a failover to a server whose clock is a minute behind the old master's.
        long aheadMicros = 60_000_000L;
        long counter = System.currentTimeMillis() * 1000 + aheadMicros;
        this.client.set("turnstile:fence:{ahead}", Long.toString(counter));
        Turnstile retaining = Turnstile.builder(this.turnstileClient)
                .fenceRetention(Duration.ofSeconds(5))
                .build();
        try (Lease lease = retaining.lock("ahead").acquire(Duration.ZERO, Duration.ofSeconds(10))) {
            assertThat(lease.fencingToken()).isEqualTo(counter + 1);
            assertThat(Long.parseLong(this.client.get("turnstile:fence:{ahead}")))
                    .as("the counter continues from the token, not from the clock")
                    .isGreaterThanOrEqualTo(counter + 1);
            assertThat(this.client.pttl("turnstile:fence:{ahead}"))
                    .as("the lease and the retention, counted from when the clock reaches the counter")
                    .isBetween(60_000L + 15_000L - 2_000L, 60_000L + 15_000L + 1_000L);
        } finally {
            retaining.close();
        }
    }

    @Test
    void fencingTokensStrictlyIncreaseOverTenThousandAcquisitionsFromManyThreads() throws Exception {
        List<Long> tokens = new ArrayList<>(10_000);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                Turnstile process = t % 2 == 0 ? this.turnstile : this.otherProcess;
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < 1_250; i++) {
                        try (Lease lease = process.lock("fenced").acquire(Duration.ofSeconds(30), null)) {
                            synchronized (tokens) {
                                tokens.add(lease.fencingToken());
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(tokens).hasSize(10_000);
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token #%d", i).isGreaterThan(tokens.get(i - 1));
        }
    }
}
