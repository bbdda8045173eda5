package dev.turnstile.redis.semaphore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.SemaphoreFullException;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.TurnstileException;
import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.RedisClients;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.Pool;

/**
 * Hunts the fair semaphore's hand-off for the failures it could have: a release that hands a permit
 * to a head of its own process that is no longer there to take it (the permit must lapse with the
 * head's place, not last a whole lease), releases racing heads of the same process that time out or
 * are interrupted, and the order of fencing tokens through hand-offs.
 */
class FairSemaphoreAdversarialIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /**
     * A waiter of this process whose leave did not reach Redis (its call to leave failed, or its
     * thread ended without leaving) still has its place, alive for at most the waiter ttl (5 s). The
     * guarantee: a permit handed to such a place "lives no longer than its place would have", so the
     * queue is delayed by 5 s at most, also when the release comes from the same process (a release
     * that granted such a place the waiter's full lease would make the next waiter wait for the whole
     * 60 s lease).
     */
    @Test
    void aPermitHandedToAPlaceWhoseWaiterIsGoneIsFreedWithinTheWaiterTtl() throws Exception {
        String name = "abandoned";
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile turnstile = Turnstile.builder(client).build();
                UnifiedJedis otherClient = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile other = Turnstile.builder(otherClient).build()) {
            RedisSemaphore semaphore = turnstile.semaphore(name, 1).fair();
            Permit held = semaphore.acquire(Duration.ZERO, null);
            // The place a waiter of this process left behind: its id has the process's prefix, its
            // lease is 60 s, and its liveness runs out 5 s from now, as after its last call.
            String prefix = held.id().substring(0, held.id().lastIndexOf(':') + 1);
            String abandoned = prefix + "999999";
            long serverNow = serverMillis(client);
            client.zadd(queue(name), client.incr(key(name, "ticket")), abandoned + "/60000");
            client.zadd(key(name, "alive"), serverNow + 5_000, abandoned + "/60000");
            client.pexpire(queue(name), 5_000);
            client.pexpire(key(name, "alive"), 5_000);

            long released = System.nanoTime();
            held.release();
            List<PermitHolder> holders = semaphore.holders();
            System.out.println("Permit handed to the abandoned place: " + holders);
            assertThat(holders).as("the permit, handed to the abandoned place").hasSize(1);
            assertThat(holders.get(0).id()).isEqualTo(abandoned);

            // A waiter of another process: served once the handed permit lapses with the place.
            AtomicLong servedAt = new AtomicLong();
            CompletableFuture<Optional<Permit>> next = CompletableFuture.supplyAsync(() -> {
                Optional<Permit> permit = other.semaphore(name, 1).fair().tryAcquire(Duration.ofSeconds(8), null);
                servedAt.set(System.nanoTime());
                return permit;
            });
            Optional<Permit> served = next.get(30, TimeUnit.SECONDS);
            assertThat(holders.get(0).remaining())
                    .as("lease of the permit handed to a place alive for 5 s more")
                    .isLessThanOrEqualTo(Duration.ofSeconds(5));
            assertThat(served).as("served once the place lapsed").isPresent();
            assertThat(Duration.ofNanos(servedAt.get() - released)).isLessThanOrEqualTo(Duration.ofMillis(5_500));
            served.get().release();
        }
    }

    /**
     * The same abandoned place, reached without touching Redis: a waiter whose calls get no pooled
     * connection within the pool's {@code maxWait} (the pool is in use) fails, and so do its cleanup
     * calls (the release of what its call may have granted, the leave of the queue), which the
     * semaphore swallows, saying the place and a permit handed to it expire after the waiter ttl. The
     * next release of the same process must not grant that place the waiter's full 60 s lease. (An
     * interrupt no longer fails these calls: they wait for a connection through it.)
     */
    @Test
    void aWaiterWhoseLeaveFailedIsNotGrantedItsFullLeaseByAReleaseOfItsProcess() throws Exception {
        String name = "failed-leave";
        try (UnifiedJedis client = clientWithPool(2, Duration.ofMillis(300));
                Turnstile turnstile = Turnstile.builder(client).build();
                UnifiedJedis otherClient = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile other = Turnstile.builder(otherClient).build()) {
            RedisSemaphore semaphore = turnstile.semaphore(name, 1).fair();
            Permit held = semaphore.acquire(Duration.ZERO, null);
            CompletableFuture<Optional<Permit>> waiter = new CompletableFuture<>();
            Thread waiting = new Thread(() -> {
                try {
                    waiter.complete(semaphore.tryAcquire(Duration.ofSeconds(20), Duration.ofSeconds(60)));
                } catch (Throwable e) {
                    waiter.completeExceptionally(e);
                }
            });
            waiting.start();
            Pool<Connection> pool = RedisClients.poolOf(client);
            // Queued, and subscribed: the release signals hold one of the two connections.
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> otherClient.zcard(queue(name)) == 1 && pool.getNumActive() == 1);
            // The pool's last connection is taken, so the waiter's next call (its place's keep-alive,
            // within 1.7 s) and its clean-up calls each give up after the pool's 300 ms.
            try (Connection taken = pool.getResource()) {
                await().atMost(Duration.ofSeconds(10)).until(waiter::isDone);
            }
            System.out.println(
                    "waiter: " + waiter.handle((permit, e) -> String.valueOf(e)).get());
            assertThat(waiter).as("the waiter failed").isCompletedExceptionally();
            // The place stays while Redis cannot be reached; the process's next call, once the
            // connection is back, takes it out of the queue, so no permit is handed to it.
            await().atMost(Duration.ofSeconds(3))
                    .alias("its place, taken out by the process's clean-up call")
                    .until(() -> otherClient.zcard(queue(name)) == 0);

            long released = System.nanoTime();
            held.release();
            List<PermitHolder> holders = semaphore.holders();
            System.out.println("Holders after the release: " + holders);
            Optional<Permit> served = other.semaphore(name, 1).fair().tryAcquire(Duration.ofSeconds(8), null);
            long servedAt = System.nanoTime();
            assertThat(holders)
                    .as("no permit handed to the place of a waiter that is gone")
                    .isEmpty();
            assertThat(served).as("served at the release").isPresent();
            assertThat(Duration.ofNanos(servedAt - released)).isLessThanOrEqualTo(Duration.ofMillis(1_000));
            served.get().release();
        }
    }

    /**
     * A head of another process, frozen (SIGSTOP) with the permit handed to it, is slow but not
     * dead: the handed permit lapses with its place and the next waiter is served. When the head
     * wakes up it must find its permit gone and queue again, never hold beside the next holder, and
     * be served at the next release.
     */
    @Test
    void aHeadFrozenPastItsPlaceLosesTheHandedPermitAndNeverHoldsBesideTheNextHolder() throws Exception {
        String name = "slow-head";
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            RedisSemaphore semaphore = turnstile.semaphore(name, 1).fair();
            Permit held = semaphore.acquire(Duration.ZERO, null);
            ChildJvm child = redis.startChild(
                    SemaphoreWorkerMain.class,
                    "wait-fair",
                    Integer.toString(redis.server().port()),
                    name,
                    "1");
            try {
                child.awaitLineStartingWith("WAITING", Duration.ofSeconds(30));
                await().atMost(Duration.ofSeconds(10)).until(() -> client.zcard(queue(name)) == 1);
                child.pause();
                held.release();
                assertThat(semaphore.holders())
                        .as("the permit, handed to the frozen head")
                        .hasSize(1);

                Optional<Permit> next = semaphore.tryAcquire(Duration.ofSeconds(10), null);
                assertThat(next).as("served once the handed permit lapsed").isPresent();
                child.resume();
                await().during(Duration.ofSeconds(2))
                        .atMost(Duration.ofSeconds(3))
                        .alias("the woken head holds nothing beside the next holder")
                        .until(() -> {
                            List<PermitHolder> holders = semaphore.holders();
                            return holders.size() == 1
                                    && holders.get(0).id().equals(next.get().id())
                                    && !child.lines().contains("ACQUIRED");
                        });
                assertThat(client.zcard(queue(name)))
                        .as("the woken head queued again")
                        .isEqualTo(1);
                next.get().release();
                child.awaitLineStartingWith("ACQUIRED", Duration.ofSeconds(10));
            } finally {
                child.resume();
                child.kill();
            }
        }
    }

    /**
     * One process, limit 2: every release is a hand-off to a head of the same process, racing heads that time out after 0–15 ms and heads that are
     * interrupted, with waiters of different lease lengths. The client's pool has a connection for
     * every thread, so an interrupt lands in the semaphore's own waits, never in a wait for a
     * connection. Never more than 2 holders, no token twice, and once everyone returned nothing is
     * left in Redis.
     */
    /**
     * A waiter whose place Redis lost while its process's calls kept being answered (the queue's
     * writes lost in a failover, a server clock step past the places' life, an eviction) queues
     * again within a keep-alive: the permit freed by another process's release reaches it, instead
     * of it waiting to its deadline.
     */
    @Test
    void aWaiterWhosePlaceRedisLostQueuesAgainAndIsServed() throws Exception {
        String name = "lost-place";
        try (TwoProcesses processes = TwoProcesses.start(Duration.ofSeconds(5))) {
            Permit held = processes.other().semaphore(name, 1).fair().acquire(Duration.ZERO, null);
            CompletableFuture<Optional<Permit>> waiter = CompletableFuture.supplyAsync(
                    () -> processes.first().semaphore(name, 1).fair().tryAcquire(Duration.ofSeconds(30), null));
            await().atMost(Duration.ofSeconds(5)).until(() -> processes.client().zcard(queue(name)) == 1);

            processes.client().del(queue(name), key(name, "alive"));
            held.release();

            Optional<Permit> served = waiter.get(6, TimeUnit.SECONDS);
            assertThat(served).as("the waiter whose place was lost").isPresent();
            served.get().release();
        }
    }

    /**
     * A waiter whose call Redis ran only after the client gave up on it (the server was frozen past
     * the socket timeout): the call granted it a permit at its full lease, but the waiter has already
     * failed and left. Its process frees that permit with its next call (retried while Redis does not
     * answer), not after the whole lease.
     */
    @Test
    void aPermitGrantedByACallWhoseAnswerWasLostIsFreedByTheWaitersProcess() throws Exception {
        String name = "lost-answer";
        try (TwoProcesses processes = TwoProcesses.start(Duration.ofMillis(500))) {
            UnifiedJedis client = processes.client();
            Turnstile impatient = processes.first();
            Turnstile other = processes.other();
            RedisSemaphore semaphore = impatient.semaphore(name, 1).fair();
            // One wait first, so Redis has the script the frozen call will run.
            Permit first = other.semaphore(name, 1).fair().acquire(Duration.ZERO, null);
            CompletableFuture<Optional<Permit>> waited =
                    CompletableFuture.supplyAsync(() -> semaphore.tryAcquire(Duration.ofSeconds(5), null));
            await().atMost(Duration.ofSeconds(5)).until(() -> client.zcard(queue(name)) == 1);
            first.release();
            waited.get(5, TimeUnit.SECONDS).orElseThrow().release();
            redis.server().pause();
            try {
                assertThatThrownBy(() -> semaphore.tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(60)))
                        .as("a call that gets no answer")
                        .isInstanceOf(TurnstileException.class);
            } finally {
                redis.server().resume(); // the call runs now: it grants the waiter that has left a 60 s permit
            }

            Optional<Permit> next = other.semaphore(name, 1).fair().tryAcquire(Duration.ofSeconds(10), null);
            assertThat(next).as("the permit, freed by the waiter's process").isPresent();
            next.get().release();
        }
    }

    @Test
    void handOffsRacingTimeoutsAndInterruptsNeitherLeakNorOverfillNorShareATokens() throws Exception {
        try (UnifiedJedis client = clientWithPool(64)) {
            race(client, "local-race");
        }
    }

    /**
     * A permit handed to the head lives only as long as the head's place (at most 5 s) until the
     * head's next call takes it: then at the head's full lease (30 s here; the first holder's lease
     * was 2 s, so nothing else keeps the holders' key that long).
     */
    @Test
    void aHandedPermitIsTakenAtTheWaitersFullLease() throws Exception {
        String name = "full-lease";
        String holders = "turnstile:sem:{" + name + "}";
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            RedisSemaphore fair = turnstile.semaphore(name, 1).fair();
            Permit first = fair.acquire(Duration.ZERO, Duration.ofSeconds(2));
            CompletableFuture<Permit> next =
                    CompletableFuture.supplyAsync(() -> fair.acquire(Duration.ofSeconds(10), Duration.ofSeconds(30)));
            await().atMost(Duration.ofSeconds(5)).until(() -> client.zcard(holders + ":queue") == 1);
            first.release();
            Permit second = next.get(10, TimeUnit.SECONDS);
            try {
                assertThat(client.zscore(holders, second.id())).isNotNull();
                assertThat(client.pttl(holders))
                        .as("the holders' key lives as long as the taken permit's 30 s lease")
                        .isGreaterThan(20_000L);
            } finally {
                second.release();
            }
        }
    }

    private static void race(UnifiedJedis client, String name) throws Exception {
        int limit = 2;
        try (Turnstile turnstile = Turnstile.builder(client).build()) {
            RedisSemaphore semaphore = turnstile.semaphore(name, limit).fair();
            Race race = new Race(semaphore, limit, 10, Duration.ofSeconds(5), 15);
            race.run();
            System.out.printf(
                    "%s: max %d, granted %d, timed out %d, interrupted %d%n",
                    name, race.max.get(), race.tokens.size(), race.timedOut.get(), race.interrupted.get());
            assertThat(race.failures).as("failures").isEmpty();
            assertThat(race.max.get()).as("most holders at once").isBetween(1, limit);
            assertThat(race.tokens).as("permits granted").isNotEmpty();
            assertThat(race.tokens).as("fencing tokens").doesNotHaveDuplicates();
            assertThat(race.timedOut.get() + race.interrupted.get())
                    .as("waits given up")
                    .isPositive();
            assertNothingLeft(semaphore, client, name);
        }
    }

    /**
     * Limit 1, one process: holds follow one another, and each gets a larger fencing token than the
     * hold before it, also when the permit was handed to it by a release and it took it with its
     * next call.
     */
    @Test
    void withOnePermitTokensIncreaseInHoldOrderThroughHandOffs() throws Exception {
        String name = "token-order";
        try (UnifiedJedis client = clientWithPool(64);
                Turnstile turnstile = Turnstile.builder(client).build()) {
            RedisSemaphore semaphore = turnstile.semaphore(name, 1).fair();
            Race race = new Race(semaphore, 1, 6, Duration.ofSeconds(4), 150);
            race.run();
            System.out.printf(
                    "fair token order: granted %d, timed out %d, interrupted %d%n",
                    race.tokens.size(), race.timedOut.get(), race.interrupted.get());
            assertThat(race.failures).as("failures").isEmpty();
            assertThat(race.max.get()).as("most holders at once").isEqualTo(1);
            assertThat(race.tokens.size()).as("permits granted").isGreaterThan(10);
            assertThat(new ArrayList<>(race.tokens))
                    .as("tokens in hold order")
                    .isSorted()
                    .doesNotHaveDuplicates();
            assertNothingLeft(semaphore, client, name);
        }
    }

    /**
     * Threads taking turns at a fair semaphore with short waits, leases of different lengths, and
     * interrupts at random moments of their acquisitions (never while they hold or release).
     */
    private static final class Race {

        private final RedisSemaphore semaphore;
        private final int limit;
        private final int threads;
        private final Duration duration;
        private final int maxWaitMillis;
        private final AtomicInteger holding = new AtomicInteger();
        private final AtomicInteger max = new AtomicInteger();
        private final AtomicInteger timedOut = new AtomicInteger();
        private final AtomicInteger interrupted = new AtomicInteger();
        /** Tokens in the order of the holds (appended while held: in hold order when the limit is 1). */
        private final ConcurrentLinkedQueue<Long> tokens = new ConcurrentLinkedQueue<>();

        private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();

        Race(RedisSemaphore semaphore, int limit, int threads, Duration duration, int maxWaitMillis) {
            this.semaphore = semaphore;
            this.limit = limit;
            this.threads = threads;
            this.duration = duration;
            this.maxWaitMillis = maxWaitMillis;
        }

        void run() throws InterruptedException {
            long end = System.nanoTime() + this.duration.toNanos();
            List<Thread> workers = new ArrayList<>();
            List<AtomicInteger> acquiring = new ArrayList<>();
            for (int t = 0; t < this.threads; t++) {
                AtomicInteger inAcquire = new AtomicInteger();
                Thread worker = new Thread(() -> work(end, inAcquire), "fair-race-" + t);
                workers.add(worker);
                acquiring.add(inAcquire);
                worker.start();
            }
            // Interrupts at random moments of an acquisition: queued, handed a permit, in a call.
            while (System.nanoTime() - end < 0) {
                int victim = ThreadLocalRandom.current().nextInt(workers.size());
                synchronized (acquiring.get(victim)) {
                    if (acquiring.get(victim).get() == 1) {
                        workers.get(victim).interrupt();
                    }
                }
                // The fault's cadence (a nemesis step), not a wait for a condition.
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(
                        ThreadLocalRandom.current().nextInt(1, 15)));
            }
            for (Thread worker : workers) {
                worker.join(TimeUnit.SECONDS.toMillis(60));
                if (worker.isAlive()) {
                    this.failures.add(worker.getName() + " still running");
                }
            }
        }

        private void work(long end, AtomicInteger inAcquire) {
            while (System.nanoTime() - end < 0) {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                Duration wait = Duration.ofMillis(random.nextInt(0, this.maxWaitMillis + 1));
                Duration lease = switch (random.nextInt(3)) {
                    case 0 -> null;
                    case 1 -> Duration.ofSeconds(20);
                    default -> Duration.ofSeconds(30);
                };
                Optional<Permit> permit = Optional.empty();
                inAcquire.set(1);
                try {
                    permit = this.semaphore.tryAcquire(wait, lease);
                    if (permit.isEmpty()) {
                        this.timedOut.incrementAndGet();
                    }
                } catch (SemaphoreFullException e) {
                    this.interrupted.incrementAndGet();
                } catch (RuntimeException e) {
                    this.failures.add("acquire: " + e);
                } finally {
                    synchronized (inAcquire) {
                        inAcquire.set(0);
                        Thread.interrupted();
                    }
                }
                if (permit.isEmpty()) {
                    continue;
                }
                try (Permit held = permit.get()) {
                    int now = this.holding.incrementAndGet();
                    this.max.accumulateAndGet(now, Math::max);
                    if (now > this.limit) {
                        this.failures.add("holders at once: " + now);
                    }
                    if (!held.isHeld()) {
                        this.failures.add("granted a permit that is not held: " + held);
                    }
                    this.tokens.add(held.fencingToken());
                    this.holding.decrementAndGet();
                } catch (RuntimeException e) {
                    this.failures.add("release: " + e);
                }
            }
        }
    }

    /**
     * Once every waiter returned, nothing may be held or queued; a waiter whose leave failed (a call
     * to Redis that failed) may leave its place for the waiter ttl, 5 s at most, and a permit handed
     * to that place no longer.
     */
    private static void assertNothingLeft(RedisSemaphore semaphore, UnifiedJedis client, String name) {
        System.out.println("left at once: holders " + semaphore.holders() + ", queue "
                + client.zrangeWithScores(queue(name), 0, -1));
        await().atMost(Duration.ofMillis(5_500))
                .pollInterval(Duration.ofMillis(100))
                .alias("no permit held and no place queued within the waiter ttl")
                .untilAsserted(() -> {
                    assertThat(semaphore.holders()).as("permits still held").isEmpty();
                    assertThat(client.zcard(queue(name)))
                            .as("places left in the queue")
                            .isZero();
                });
    }

    private static UnifiedJedis clientWithPool(int connections) {
        return clientWithPool(connections, Duration.ofMillis(-1));
    }

    /** A client whose pool has {@code connections}, each waited for at most {@code maxWait} (negative: no limit). */
    private static UnifiedJedis clientWithPool(int connections, Duration maxWait) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(connections);
        pool.setMaxIdle(connections);
        pool.setMaxWait(maxWait);
        return RedisClients.standalone(
                redis.server().hostAndPort(),
                RedisClients.withProtocol(DefaultJedisClientConfig.builder()
                                .connectionTimeoutMillis(5_000)
                                .socketTimeoutMillis(5_000))
                        .build(),
                pool);
    }

    /**
     * Two Turnstiles on the test's server, as two processes have: the first on a client whose socket
     * timeout is given, the other on {@link #client()} (5 s).
     */
    private record TwoProcesses(UnifiedJedis firstClient, Turnstile first, UnifiedJedis client, Turnstile other)
            implements AutoCloseable {

        static TwoProcesses start(Duration firstTimeout) {
            UnifiedJedis firstClient = redis.server().newClient(firstTimeout);
            UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(5));
            return new TwoProcesses(
                    firstClient,
                    Turnstile.builder(firstClient).build(),
                    client,
                    Turnstile.builder(client).build());
        }

        @Override
        public void close() {
            this.other.close();
            this.client.close();
            this.first.close();
            this.firstClient.close();
        }
    }

    private static long serverMillis(UnifiedJedis client) {
        return (Long) client.eval(
                "local t = redis.call('TIME') return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)");
    }

    private static String queue(String name) {
        return key(name, "queue");
    }

    private static String key(String name, String suffix) {
        return "turnstile:sem:{" + name + "}:" + suffix;
    }
}
