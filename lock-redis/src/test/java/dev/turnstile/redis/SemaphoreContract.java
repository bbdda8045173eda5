package dev.turnstile.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.semaphore.Permit;
import dev.turnstile.redis.semaphore.PermitHolder;
import dev.turnstile.redis.semaphore.RedisSemaphore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * The semaphore's contract, independent of the deployment: each subclass runs every test against
 * its own kind of Redis (one server, a cluster), unchanged.
 */
public abstract class SemaphoreContract {

    /** Lost leases heard by {@link #turnstile}'s listener. */
    protected final List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
    /** A client of the deployment under test. */
    protected UnifiedJedis client;
    /** The Turnstile under test (default lease 3 s). */
    protected Turnstile turnstile;

    /** The client the Turnstile under test uses: {@link #client} unless a subclass connects another. */
    protected UnifiedJedis turnstileClient;

    /** Returns a new client of the deployment under test; closed after each test. */
    protected abstract UnifiedJedis connect();

    /**
     * Returns the client the Turnstile under test uses (closed after each test unless it is {@code
     * client} itself); by default {@code client}, which the tests also use to read and write Redis.
     */
    protected UnifiedJedis connectTurnstile(UnifiedJedis client) {
        return client;
    }

    @BeforeEach
    void setUp() {
        this.client = connect();
        this.turnstileClient = connectTurnstile(this.client);
        this.turnstile = Turnstile.builder(this.turnstileClient)
                .defaultLease(Duration.ofSeconds(3))
                .listener(this.lost::add)
                .build();
    }

    @AfterEach
    void tearDown() {
        this.turnstile.close();
        if (this.turnstileClient != this.client) {
            this.turnstileClient.close();
        }
        this.client.close();
    }

    @Test
    void stateExpiresWhenNoPermitIsLeftAndNoKeyLacksATtl() {
        RedisSemaphore semaphore = this.turnstile.semaphore("ttl", 2);
        Permit permit = semaphore.acquire(Duration.ZERO, Duration.ofSeconds(10));
        assertThat(this.client.pttl("turnstile:sem:{ttl}")).isBetween(1L, 10_000L);
        assertThat(this.client.pttl("turnstile:sem:{ttl}:fence")).isPositive();
        permit.release();
        assertThat(this.client.exists("turnstile:sem:{ttl}")).isFalse();

        semaphore.acquire(Duration.ZERO, Duration.ofMillis(100));
        await().atMost(Duration.ofSeconds(5)).until(() -> !this.client.exists("turnstile:sem:{ttl}"));
    }

    @Test
    void releaseIsOwnerCheckedAndIdempotent() {
        RedisSemaphore semaphore = this.turnstile.semaphore("idem", 1);
        Permit expired = semaphore.acquire(Duration.ZERO, Duration.ofMillis(100));
        await().atMost(Duration.ofSeconds(5)).until(() -> semaphore.availablePermits() == 1);
        Permit current = semaphore.acquire(Duration.ZERO, Duration.ofSeconds(30));
        assertThat(expired.release()).isFalse();
        assertThat(semaphore.holders()).extracting(PermitHolder::id).containsExactly(current.id());
        assertThat(current.release()).isTrue();
        assertThat(current.release()).isFalse();
    }

    @Test
    void releaseAfterKeepsThePermitCountedUntilTheHoldHasPassedSinceTheGrant() {
        for (boolean fair : new boolean[] {false, true}) {
            RedisSemaphore plain = this.turnstile.semaphore("hold:" + fair, 1);
            RedisSemaphore semaphore = fair ? plain.fair() : plain;
            Permit permit = semaphore.acquire(Duration.ZERO, null);
            assertThat(permit.releaseAfter(Duration.ofMillis(500))).isTrue();
            assertThat(semaphore.holders()).extracting(PermitHolder::id).containsExactly(permit.id());
            assertThat(semaphore.holders().get(0).remaining()).isBetween(Duration.ofMillis(1), Duration.ofMillis(500));
            assertThat(semaphore.tryAcquire(Duration.ZERO, null))
                    .as("still counted: fair=" + fair)
                    .isEmpty();
            await().atMost(Duration.ofSeconds(3)).until(() -> semaphore.availablePermits() == 1);
            Permit next = semaphore.acquire(Duration.ZERO, Duration.ofSeconds(5));
            assertThat(next.fencingToken()).isGreaterThan(permit.fencingToken());
            assertThat(next.releaseAfter(Duration.ofMillis(1))).isTrue();
            await().atMost(Duration.ofSeconds(1)).until(() -> semaphore.availablePermits() == 1);
        }
    }

    @Test
    void waitingAcquireGetsThePermitWhenOneIsReleased() throws Exception {
        RedisSemaphore semaphore = this.turnstile.semaphore("wait", 1);
        Permit held = semaphore.acquire(Duration.ZERO, null);
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            Future<Permit> waiter = other.submit(() -> semaphore.acquire(Duration.ofSeconds(10), null));
            await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> !waiter.isDone());
            held.release();
            Permit next = waiter.get();
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            next.release();
        } finally {
            other.shutdownNow();
        }
    }

    @Test
    void refreshingHolderKeepsItsPermitForTenLeases() {
        RedisSemaphore semaphore = this.turnstile.semaphore("stream", 1);
        // 400 ms refreshed every 100 ms: a stall of up to 300 ms (a busy machine) costs no lease.
        Duration lease = Duration.ofMillis(400);
        Permit permit = semaphore.acquire(Duration.ZERO, lease);
        long end = System.nanoTime() + lease.multipliedBy(10).toNanos();
        int refusals = 0;
        while (System.nanoTime() < end) {
            permit.extend(lease);
            assertThat(semaphore.tryAcquire()).isEmpty();
            refusals++;
            // Pace the refresh at a quarter of the lease, like a streaming connection's heartbeat.
            LockSupport.parkNanos(lease.toNanos() / 4);
        }
        assertThat(refusals).as("refreshes, each followed by a refused acquire").isGreaterThanOrEqualTo(20);
        assertThat(permit.isHeld()).isTrue();
        assertThat(this.lost).isEmpty();
        assertThat(permit.release()).isTrue();
    }

    @Test
    void watchdogKeepsAPermitWithoutLeaseTime() {
        Turnstile shortLease = Turnstile.builder(this.turnstileClient)
                .defaultLease(Duration.ofMillis(300))
                .build();
        try {
            RedisSemaphore semaphore = shortLease.semaphore("watched", 1);
            Permit permit = semaphore.acquire(Duration.ZERO, null);
            await().during(Duration.ofSeconds(1))
                    .atMost(Duration.ofSeconds(2))
                    .until(() -> permit.isHeld() && semaphore.tryAcquire().isEmpty());
            assertThat(permit.release()).isTrue();
        } finally {
            shortLease.close();
        }
    }

    @Test
    void unrefreshedPermitIsReportedLostAndCannotBeExtended() {
        RedisSemaphore semaphore = this.turnstile.semaphore("lapse", 2);
        Permit permit = semaphore.acquire(Duration.ZERO, Duration.ofMillis(150));
        await().atMost(Duration.ofSeconds(5)).until(() -> !this.lost.isEmpty());
        assertThat(this.lost).singleElement().satisfies(event -> {
            assertThat(event.kind()).isEqualTo(LeaseKind.SEMAPHORE);
            assertThat(event.reason()).isEqualTo(LeaseLostEvent.Reason.LEASE_ELAPSED);
        });
        assertThatThrownBy(() -> permit.extend(Duration.ofSeconds(5)))
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("semaphore 'lapse'");
        assertThat(semaphore.holders()).isEmpty();
    }

    @Test
    void extendNeverReaddsAnExpiredPermit() {
        RedisSemaphore semaphore = this.turnstile.semaphore("no-readd", 1);
        Permit permit = semaphore.acquire(Duration.ZERO, Duration.ofSeconds(30));
        this.client.zadd("turnstile:sem:{no-readd}", 1, permit.id()); // expired long ago by server time
        assertThatThrownBy(() -> permit.extend(Duration.ofSeconds(5))).isInstanceOf(LockLostException.class);
        assertThat(this.lost)
                .extracting(LeaseLostEvent::reason)
                .containsExactly(LeaseLostEvent.Reason.EXPIRED_IN_REDIS);
        assertThat(semaphore.holders()).isEmpty();
    }

    @Test
    void badInputIsRejectedWithTheValueQuoted() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> this.turnstile.semaphore("s", 0))
                .withMessage("'limit' of semaphore 's' must be at least 1 but was 0");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> this.turnstile.semaphore(" ", 1))
                .withMessageContaining("'name'");
        RedisSemaphore semaphore = this.turnstile.semaphore("s", 1);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> semaphore.tryAcquire(Duration.ofMillis(-1), null))
                .withMessageContaining("'wait'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> semaphore.tryAcquire(Duration.ZERO, Duration.ofSeconds(-1)))
                .withMessage("'leaseTime' must be positive but was PT-1S");
    }

    @Test
    void fairSemaphoreGrantsInArrivalOrderToAThousandWaiters() throws Exception {
        long t0 = System.nanoTime();
        RedisSemaphore fair = this.turnstile.semaphore("fair", 1).fair();
        List<long[]> grants = runArrivals(fair, i -> fair, Integer.getInteger("w", 1_000), true);
        System.out.println("fair took ms " + (System.nanoTime() - t0) / 1_000_000);
        grants.sort((a, b) -> Long.compare(a[0], b[0]));
        assertThat(grants).hasSize(1_000);
        assertThat(inversions(grants))
                .as("waiters served before an earlier arrival")
                .isZero();
    }

    @Test
    void unfairSemaphoreLetsLaterArrivalsOvertake() throws Exception {
        // Threads of one process queue for a permit in arrival order; those of other processes
        // (here: other Turnstile instances, each with its own local queue) may overtake them.
        List<Turnstile> processes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            processes.add(Turnstile.builder(this.turnstileClient).build());
        }
        try {
            RedisSemaphore gate = this.turnstile.semaphore("unfair", 1);
            List<long[]> grants =
                    runArrivals(gate, i -> processes.get(i % processes.size()).semaphore("unfair", 1), 200, false);
            grants.sort((a, b) -> Long.compare(a[0], b[0]));
            long overtakes = inversions(grants);
            System.out.printf("unfair semaphore: %d overtakes among 200 waiters%n", overtakes);
            assertThat(grants).hasSize(200);
            assertThat(overtakes).isPositive();
        } finally {
            processes.forEach(Turnstile::close);
        }
    }

    /**
     * Holds the only permit of {@code gate}, starts {@code waiters} threads one after another on
     * {@code semaphores.apply(arrival)} (each queued in the fair semaphore's Redis queue before the
     * next starts, when {@code awaitQueued}), then lets them through. Returns {arrival index,
     * fencing token}.
     */
    private List<long[]> runArrivals(
            RedisSemaphore gate,
            java.util.function.IntFunction<RedisSemaphore> semaphores,
            int waiters,
            boolean awaitQueued)
            throws Exception {
        Permit held = gate.acquire(Duration.ZERO, null);
        List<long[]> grants = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            int arrival = i;
            RedisSemaphore semaphore = semaphores.apply(i);
            Thread thread = new Thread(() -> {
                Permit permit = semaphore.acquire(Duration.ofMinutes(2), null);
                grants.add(new long[] {arrival, permit.fencingToken()});
                permit.release();
            });
            thread.start();
            threads.add(thread);
            if (awaitQueued) {
                // A fair waiter takes its ticket in Redis's queue on arrival (it never queues in the
                // process): the next starts once this one holds its place there.
                long queued = i + 1;
                await().pollInterval(Duration.ofMillis(1))
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> this.client.zcard("turnstile:sem:{fair}:queue") == queued);
            } else {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
        }
        held.release();
        for (Thread thread : threads) {
            thread.join(TimeUnit.MINUTES.toMillis(2));
        }
        return new ArrayList<>(grants);
    }

    /** Pairs where a later arrival got a smaller (earlier) fencing token. */
    private static long inversions(List<long[]> byArrival) {
        long count = 0;
        for (int i = 0; i < byArrival.size(); i++) {
            for (int j = i + 1; j < byArrival.size(); j++) {
                if (byArrival.get(j)[1] < byArrival.get(i)[1]) {
                    count++;
                }
            }
        }
        return count;
    }
}
