package dev.turnstile.integration;

import static org.assertj.core.api.Assertions.assertThat;
import redis.clients.jedis.UnifiedJedis;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link TurnstileLockRegistry#expireUnusedOlderThan} racing {@code obtain()} and the lock's holders. */
class TurnstileLockRegistryExpiryTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final List<String> NAMES = List.of("orders", "invoices", "shipments", "refunds");
    private static final int PASSES = 20_000;
    private static final int WORKERS = 4;
    private static final Duration AGE = Duration.ofSeconds(1);

    private UnifiedJedis client;
    private Turnstile turnstile;
    private TurnstileLockRegistry registry;
    private ExecutorService threads;

    @BeforeEach
    void setUp() {
        this.client = redis.server().newClient(Duration.ofSeconds(2));
        this.turnstile = Turnstile.builder(this.client).build();
        this.registry = new TurnstileLockRegistry(this.turnstile);
        this.threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void tearDown() {
        this.threads.shutdownNow();
        this.turnstile.close();
        this.client.close();
    }

    @Test
    void aLockThatObtainReturnsDuringAnExpiryPassStaysTheLockOfItsName() throws Exception {
        List<TurnstileLockRegistry> registries = new ArrayList<>();
        for (int pass = 0; pass < PASSES; pass++) {
            TurnstileLockRegistry registry = new TurnstileLockRegistry(this.turnstile);
            NAMES.forEach(registry::obtain);
            registries.add(registry);
        }
        long obtainedAt = System.nanoTime();
        await().atMost(AGE.multipliedBy(5)).until(() -> System.nanoTime() - obtainedAt > AGE.toNanos());
        // Every lock is now unused for longer than AGE. One expiry pass per registry, while another
        // thread obtains every name: used within AGE, the locks it gets must stay. Both threads spin
        // at each hand-off: a thread that parks wakes only after the pass is over.
        AtomicInteger ready = new AtomicInteger(-1);
        AtomicInteger started = new AtomicInteger(-1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Future<List<Dropped>> obtainer = this.threads.submit(() -> {
            List<Dropped> dropped = new ArrayList<>();
            for (int pass = 0; pass < PASSES; pass++) {
                TurnstileLockRegistry registry = registries.get(pass);
                ready.set(pass);
                spinUntil(started, pass, deadline);
                List<TurnstileLock> obtained = NAMES.stream().map(registry::obtain).toList();
                for (TurnstileLock lock : obtained) {
                    if (registry.obtain(lock.name()) != lock) {
                        dropped.add(new Dropped(registry, lock, pass));
                    }
                }
            }
            return dropped;
        });
        for (int pass = 0; pass < PASSES; pass++) {
            spinUntil(ready, pass, deadline);
            started.set(pass);
            registries.get(pass).expireUnusedOlderThan(AGE.toMillis());
        }
        List<Dropped> dropped = obtainer.get(60, TimeUnit.SECONDS);
        long notReentered = dropped.stream().limit(20).filter(Dropped::holderCannotReenter).count();
        System.out.printf(
                "obtain() returned a lock the running expiry pass then forgot: %d times in %d passes over %d names"
                        + " (of the first %d, %d holders could not re-enter through obtain())%n",
                dropped.size(), PASSES, NAMES.size(), Math.min(20, dropped.size()), notReentered);
        assertThat(dropped.size())
                .as("locks that obtain() returned and the registry then forgot (the next obtain() gives"
                        + " another lock, which the first one's holder cannot take), such as %s",
                        dropped.stream().limit(5).toList())
                .isZero();
    }

    /** A lock that {@code obtain()} returned in {@code pass}, no longer the registry's lock of its name. */
    record Dropped(TurnstileLockRegistry registry, TurnstileLock lock, int pass) {

        /** Holds the dropped lock and re-enters through {@code obtain()}, as reentrant code would. */
        boolean holderCannotReenter() {
            this.lock.lock();
            try {
                Lock again = this.registry.obtain(this.lock.name());
                if (again.tryLock()) {
                    again.unlock();
                    return false;
                }
                return true;
            } finally {
                this.lock.unlock();
            }
        }

        @Override
        public String toString() {
            return "'" + this.lock.name() + "' in pass " + this.pass;
        }
    }

    /** Spins until {@code counter} reaches {@code value}; yields once the other thread is late. */
    private static void spinUntil(AtomicInteger counter, int value, long deadlineNanos) {
        int spins = 0;
        while (counter.get() < value) {
            if (System.nanoTime() > deadlineNanos) {
                throw new IllegalStateException("The other thread did not reach pass " + value);
            }
            if (++spins > 10_000) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
    }

    @Test
    void aHeldLockIsNeverExpiredAndStaysReentrantThroughObtain() throws Exception {
        CyclicBarrier start = new CyclicBarrier(WORKERS + 1);
        List<Future<Integer>> holders = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
            String name = "held-" + w;
            holders.add(this.threads.submit(() -> {
                start.await();
                int registeredHolds = 0;
                for (int i = 0; i < 200; i++) {
                    TurnstileLock lock = this.registry.obtain(name);
                    lock.lock();
                    try {
                        // Expired between obtain() and lock() (nothing held it yet): another lock now.
                        if (this.registry.obtain(name) != lock) {
                            continue;
                        }
                        registeredHolds++;
                        for (int nested = 0; nested < 3; nested++) {
                            assertThat(this.registry.obtain(name))
                                    .as("held, so never expired")
                                    .isSameAs(lock);
                            assertThat(lock.tryLock()).isTrue();
                            lock.unlock();
                        }
                    } finally {
                        lock.unlock();
                    }
                }
                return registeredHolds;
            }));
        }
        start.await();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!holders.stream().allMatch(Future::isDone) && System.nanoTime() < deadline) {
            this.registry.expireUnusedOlderThan(0);
        }
        for (Future<Integer> holder : holders) {
            assertThat(holder.get(1, TimeUnit.SECONDS)).isPositive();
        }
    }
}
