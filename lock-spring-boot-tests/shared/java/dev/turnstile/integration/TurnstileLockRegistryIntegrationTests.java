package dev.turnstile.integration;

import static org.assertj.core.api.Assertions.assertThat;
import redis.clients.jedis.UnifiedJedis;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.LockLostException;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.spring.BootLine;
import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/** The {@code LockRegistry} adapter on the Spring Integration version this Boot line manages. */
class TurnstileLockRegistryIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private UnifiedJedis client;
    private Turnstile turnstile;
    private TurnstileLockRegistry registry;
    private ExecutorService threads;

    @BeforeEach
    void setUp() {
        this.client = redis.server().newClient(Duration.ofSeconds(2));
        this.turnstile =
                Turnstile.builder(this.client).defaultLease(Duration.ofSeconds(3)).build();
        this.registry = new TurnstileLockRegistry(this.turnstile);
        this.threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void tearDown() {
        this.threads.shutdownNow();
        this.turnstile.close();
        this.client.close();
    }

    private ApplicationContextRunner app() {
        return new ApplicationContextRunner()
                .withConfiguration(BootLine.turnstile())
                .withConfiguration(AutoConfigurations.of(TurnstileIntegrationAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port());
    }

    @Test
    void theLockIsReentrantPerThreadAndHeldInRedisUntilTheLastUnlock() {
        TurnstileLock lock = this.registry.obtain("orders");
        assertThat(this.registry.obtain("orders")).isSameAs(lock);
        lock.lock();
        long token = lock.fencingToken();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.fencingToken()).as("a nested hold shares the lease").isEqualTo(token);
        assertThat(this.client.pttl("turnstile:lock:{orders}")).isBetween(1L, 3_000L);
        lock.unlock();
        assertThat(this.turnstile.lock("orders").isLocked()).isTrue();
        lock.unlock();
        assertThat(this.turnstile.lock("orders").isLocked()).isFalse();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("'orders' is not held by thread");
        lock.lock();
        assertThat(lock.fencingToken()).isGreaterThan(token);
        lock.unlock();
    }

    @Test
    void anotherThreadCannotUnlockAndWaitsInTryLockUntilItIsFree() throws Exception {
        Lock lock = this.registry.obtain("shared");
        lock.lock();
        assertThatThrownBy(() -> this.threads.submit(lock::unlock).get())
                .hasCauseInstanceOf(IllegalMonitorStateException.class);
        assertThat(this.threads.submit(() -> lock.tryLock()).get()).isFalse();
        Future<Boolean> waiter = this.threads.submit(() -> {
            boolean got = lock.tryLock(10, TimeUnit.SECONDS);
            if (got) {
                lock.unlock();
            }
            return got;
        });
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> !waiter.isDone());
        lock.unlock();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(this.threads.submit(() -> lock.tryLock(50, TimeUnit.MILLISECONDS)).get())
                .as("acquired by a pool thread that did not unlock: held")
                .isTrue();
        assertThat(lock.tryLock(50, TimeUnit.MILLISECONDS)).isFalse();
    }

    @Test
    void lockInterruptiblyStopsOnInterruptAndLeavesNothingHeld() throws Exception {
        Lock lock = this.registry.obtain("interruptible");
        lock.lock();
        CountDownLatch waiting = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        Thread waiter = new Thread(() -> {
            waiting.countDown();
            try {
                this.registry.obtain("interruptible").lockInterruptibly();
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        });
        waiter.start();
        waiting.await();
        await().atMost(Duration.ofSeconds(2)).until(() -> waiter.getState() != Thread.State.RUNNABLE);
        waiter.interrupt();
        waiter.join(5_000);
        assertThat(interrupted).isTrue();
        lock.unlock();
        assertThat(this.turnstile.lock("interruptible").isLocked()).isFalse();
        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void twoRegistriesNeverLetTwoHoldersInAtOnce() throws Exception {
        TurnstileLockRegistry other = new TurnstileLockRegistry(Turnstile.builder(this.client).build());
        List<long[]> holds = new CopyOnWriteArrayList<>();
        AtomicLong counter = new AtomicLong();
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            LockRegistry registry = t % 2 == 0 ? this.registry : other;
            workers.add(this.threads.submit(() -> {
                for (int i = 0; i < 50; i++) {
                    Lock lock = registry.obtain("counter");
                    lock.lock();
                    try {
                        long start = System.nanoTime();
                        long read = counter.get();
                        LockSupport.parkNanos(20_000);
                        counter.set(read + 1);
                        holds.add(new long[] {start, System.nanoTime()});
                    } finally {
                        lock.unlock();
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(60, TimeUnit.SECONDS);
        }
        assertThat(counter.get()).isEqualTo(400);
        List<long[]> sorted = new ArrayList<>(holds);
        sorted.sort(Comparator.comparingLong(hold -> hold[0]));
        for (int i = 1; i < sorted.size(); i++) {
            assertThat(sorted.get(i)[0]).isGreaterThanOrEqualTo(sorted.get(i - 1)[1]);
        }
    }

    @Test
    void aLostLeaseIsNoticedByTheNextNestedTryLockAndByUnlock() throws InterruptedException {
        TurnstileLockRegistry fixed = new TurnstileLockRegistry(this.turnstile, Duration.ofMillis(200));
        TurnstileLock lock = fixed.obtain("short");
        lock.lock();
        await().pollInSameThread().atMost(Duration.ofSeconds(2)).until(() -> !lock.isHeld());
        TurnstileLock stolen = new TurnstileLockRegistry(Turnstile.builder(this.client).build()).obtain("short");
        assertThat(stolen.tryLock(2, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(lock::tryLock)
                .as("the nested attempt finds the lease lost")
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("'short'")
                .hasMessageContaining("unlock every hold of it");
        assertThat(lock.isHeldByCurrentThread())
                .as("not held once the loss is known, while the new owner holds it")
                .isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
        assertThatThrownBy(lock::unlock)
                .as("released locally all the same")
                .isInstanceOf(IllegalMonitorStateException.class);
        assertThat(this.turnstile.lock("short").isLocked()).as("the new owner keeps it").isTrue();
        stolen.unlock();
    }

    @Test
    void aHoldWhoseLeaseWasLostRefusesNestedAcquisitionsAndEveryUnlockReportsTheLoss() throws Exception {
        Turnstile shortLeases = Turnstile.builder(this.client).defaultLease(Duration.ofSeconds(1)).build();
        try {
            TurnstileLock lock = new TurnstileLockRegistry(shortLeases).obtain("leader");
            lock.lock();
            assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
            long token = lock.fencingToken();
            // Another node takes over (an operator force-released it): the watchdog finds it lost.
            this.turnstile.lock("leader").forceRelease();
            TurnstileLock other = new TurnstileLockRegistry(this.turnstile).obtain("leader");
            // (a forced release keeps the name for the lock cohort's longest age: a short wait)
            assertThat(this.threads.submit(() -> other.tryLock(1, TimeUnit.SECONDS)).get())
                    .isTrue();
            await().pollInSameThread().atMost(Duration.ofSeconds(3)).until(() -> !lock.isHeld());
            assertThat(lock.isHeldByCurrentThread())
                    .as("not held by this thread once the loss is known: another node holds it")
                    .isFalse();
            // Nested acquisitions neither wait nor take the lock back inside the broken hold.
            long start = System.nanoTime();
            assertThatThrownBy(() -> lock.tryLock(5, TimeUnit.SECONDS)).isInstanceOf(LockLostException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
            assertThatThrownBy(lock::lock).isInstanceOf(LockLostException.class);
            assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(LockLostException.class);
            this.threads.submit(other::unlock).get();
            assertThatThrownBy(lock::tryLock)
                    .as("a free name is not taken back either: the loss must be heard first")
                    .isInstanceOf(LockLostException.class);
            assertThat(this.turnstile.lock("leader").isLocked()).isFalse();
            // Every unlock of the hold reports the loss, and gives up its count all the same.
            assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
            assertThat(lock.isHeldByCurrentThread()).isFalse();
            assertThatThrownBy(lock::unlock)
                    .as("one count was left to give up")
                    .isInstanceOf(LockLostException.class);
            assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
            // A new hold, a new lease, with all its nested holds sharing it until the last unlock.
            assertThat(lock.tryLock(Long.MAX_VALUE, TimeUnit.MILLISECONDS)).as("any wait is accepted").isTrue();
            assertThat(lock.fencingToken()).isGreaterThan(token);
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
            assertThat(this.turnstile.lock("leader").isLocked()).isTrue();
            lock.unlock();
            assertThat(this.turnstile.lock("leader").isLocked()).isFalse();
        } finally {
            shortLeases.close();
        }
    }

    @Test
    void renewLockExtendsAFixedLeaseAndRefusesAThreadThatDoesNotHoldIt() {
        TurnstileLockRegistry fixed = new TurnstileLockRegistry(this.turnstile, Duration.ofMillis(500));
        TurnstileLock lock = fixed.obtain("renewed");
        lock.lock();
        fixed.renewLock("renewed", Duration.ofSeconds(10));
        assertThat(this.client.pttl("turnstile:lock:{renewed}")).isGreaterThan(5_000L);
        fixed.renewLock("renewed");
        assertThat(this.client.pttl("turnstile:lock:{renewed}")).isBetween(1L, 500L);
        assertThatThrownBy(() -> this.threads.submit(() -> fixed.renewLock("renewed")).get())
                .hasCauseInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not held by the current thread");
        lock.unlock();
        fixed.expireUnusedOlderThan(0);
        assertThat(fixed.obtain("renewed")).isNotSameAs(lock);
        assertThatThrownBy(() -> fixed.obtain(42)).hasMessageContaining("a non-blank String, but got java.lang.Integer");
    }

    @Test
    void theStarterProvidesTheRegistryAndAnApplicationBeanReplacesIt() {
        assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()))
                .contains(TurnstileIntegrationAutoConfiguration.class.getName());
        app().run(context -> {
            assertThat(context).hasSingleBean(TurnstileLockRegistry.class);
            assertThat(context).hasBean("turnstileLockRegistry");
            LockRegistry registry = context.getBean("turnstileLockRegistry", LockRegistry.class);
            Object lockedInside = registry.executeLocked(
                    "via-spring", () -> this.turnstile.lock("via-spring").isLocked());
            assertThat(lockedInside).isEqualTo(true);
        });
        app().withUserConfiguration(OwnRegistry.class).run(context -> {
            assertThat(context).doesNotHaveBean("turnstileLockRegistry");
            assertThat(context.getBean(LockRegistry.class)).isInstanceOf(DefaultLockRegistry.class);
        });
    }

    @Test
    void theOtherInstanceBecomesLeaderWithinTheLeaseWhenTheLeaderIsKilled() throws Exception {
        Duration lease = Duration.ofSeconds(2);
        try (ChildJvm child = redis.startChild(
                LeaderMain.class, Integer.toString(redis.server().port()), Long.toString(lease.toMillis()))) {
            child.awaitLineStartingWith("LEADER", Duration.ofSeconds(30));
            CountDownLatch elected = new CountDownLatch(1);
            app().withPropertyValues("turnstile.default-lease=" + lease.toMillis() + "ms")
                    .run(context -> {
                        TurnstileLockRegistry registry = context.getBean(TurnstileLockRegistry.class);
                        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(
                                registry, new DefaultCandidate("parent", "turnstile-leader") {
                                    @Override
                                    public void onGranted(Context leadership) {
                                        elected.countDown();
                                    }
                                });
                        initiator.start();
                        try {
                            assertThat(elected.await(1, TimeUnit.SECONDS))
                                    .as("the child leads; this instance must not")
                                    .isFalse();
                            long killed = System.nanoTime();
                            child.kill();
                            assertThat(elected.await(30, TimeUnit.SECONDS)).isTrue();
                            Duration failover = Duration.ofNanos(System.nanoTime() - killed);
                            System.out.println("Leader failover after kill -9: " + failover.toMillis() + " ms (lease "
                                    + lease.toMillis() + " ms)");
                            assertThat(failover).isLessThanOrEqualTo(lease.plusMillis(500));
                        } finally {
                            initiator.stop();
                        }
                    });
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnRegistry {

        @Bean
        DefaultLockRegistry applicationLockRegistry() {
            return new DefaultLockRegistry();
        }
    }
}
