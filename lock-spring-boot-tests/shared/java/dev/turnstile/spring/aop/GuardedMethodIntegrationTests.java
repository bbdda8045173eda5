package dev.turnstile.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.LockLostException;
import dev.turnstile.redis.SemaphoreFullException;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.spring.LockContext;
import dev.turnstile.spring.aop.GuardedServices.Accounts;
import dev.turnstile.spring.aop.GuardedServices.Audit;
import dev.turnstile.spring.aop.GuardedServices.Hold;
import dev.turnstile.spring.aop.GuardedServices.Ledger;
import dev.turnstile.spring.aop.GuardedServices.Inventory;
import dev.turnstile.spring.aop.GuardedServices.PartnerApi;
import dev.turnstile.spring.aop.GuardedServices.PartnerApiClient;
import dev.turnstile.spring.autoconfigure.TurnstileAutoConfiguration;
import dev.turnstile.test.redis.RedisServerExtension;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import dev.turnstile.spring.BootLine;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;
import redis.clients.jedis.UnifiedJedis;

class GuardedMethodIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @BeforeEach
    void clearHolds() {
        GuardedServices.HOLDS.clear();
    }

    private ApplicationContextRunner node(String name) {
        return new ApplicationContextRunner()
                .withConfiguration(
                        BootLine.turnstile())
                .withUserConfiguration(Services.class)
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port(),
                        "node=" + name);
    }

    @Test
    void twoNodesNeverHoldTheSameKeyAtOnceAndDifferentKeysRunInParallel() {
        node("a")
                .run(a -> node("b").run(b -> {
                    ExecutorService pool = Executors.newFixedThreadPool(8);
                    try {
                        // The work is a read-modify-write of a counter in Redis with a pause between
                        // the read and the write: two holders at once lose an increment.
                        UnifiedJedis redisClient = redis.server().client();
                        Runnable increment = () -> {
                            String count = redisClient.get("hot-count");
                            LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
                            redisClient.set("hot-count", Long.toString(count == null ? 1 : Long.parseLong(count) + 1));
                        };
                        List<Future<?>> calls = new ArrayList<>();
                        for (int i = 0; i < 200; i++) {
                            Inventory inventory = (i % 2 == 0 ? a : b).getBean(Inventory.class);
                            calls.add(pool.submit(() -> inventory.buy("hot", increment)));
                        }
                        for (Future<?> call : calls) {
                            call.get();
                        }
                        assertThat(redisClient.get("hot-count")).as("increments kept").isEqualTo("200");
                        List<Hold> holds = new ArrayList<>(GuardedServices.HOLDS);
                        holds.sort(Comparator.comparingLong(Hold::start));
                        assertThat(holds).hasSize(200).extracting(Hold::node).contains("a", "b");
                        int overlaps = 0;
                        for (int i = 1; i < holds.size(); i++) {
                            if (holds.get(i).start() < holds.get(i - 1).end()) {
                                overlaps++;
                            }
                        }
                        assertThat(overlaps).as("holds that start before the previous one ended").isZero();

                        // Different keys: both calls are inside at once (each waits for the other).
                        CountDownLatch bothInside = new CountDownLatch(2);
                        AtomicInteger metInside = new AtomicInteger();
                        Runnable meet = () -> {
                            bothInside.countDown();
                            try {
                                if (bothInside.await(10, TimeUnit.SECONDS)) {
                                    metInside.incrementAndGet();
                                }
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        };
                        Future<?> first =
                                pool.submit(() -> a.getBean(Inventory.class).buy("left", meet));
                        Future<?> second =
                                pool.submit(() -> b.getBean(Inventory.class).buy("right", meet));
                        first.get();
                        second.get();
                        assertThat(metInside).hasValue(2);
                    } finally {
                        pool.shutdownNow();
                    }
                }));
    }

    @Test
    void semaphoreAdmitsFiveOfTwentyCallersOnTwoNodesAndRefusesTheRestAtOnce() {
        node("a")
                .run(a -> node("b").run(b -> {
                    assertThat(Proxy.isProxyClass(a.getBean(PartnerApi.class).getClass()))
                            .as("JDK proxy")
                            .isTrue();
                    ExecutorService pool = Executors.newFixedThreadPool(20);
                    CountDownLatch release = new CountDownLatch(1);
                    AtomicInteger inside = new AtomicInteger();
                    AtomicInteger mostInside = new AtomicInteger();
                    Runnable hold = () -> {
                        mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        try {
                            release.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        inside.decrementAndGet();
                    };
                    try {
                        List<Future<String>> calls = new ArrayList<>();
                        for (int i = 0; i < 20; i++) {
                            PartnerApi api = (i % 2 == 0 ? a : b).getBean(PartnerApi.class);
                            calls.add(pool.submit(() -> api.call("acct-7", hold)));
                        }
                        // The 15 refused calls finish while the 5 admitted ones still hold their permits.
                        await().atMost(Duration.ofSeconds(10))
                                .until(() ->
                                        calls.stream().filter(Future::isDone).count() == 15);
                        assertThat(inside).hasValue(5);
                        long refused = calls.stream()
                                .filter(Future::isDone)
                                .filter(call -> {
                                    try {
                                        call.get();
                                        return false;
                                    } catch (Exception e) {
                                        return e.getCause() instanceof SemaphoreFullException;
                                    }
                                })
                                .count();
                        assertThat(refused).isEqualTo(15);
                        assertThat(b.getBean(PartnerApi.class).call("other-account", () -> {}))
                                .isEqualTo("ok");
                        release.countDown();
                        int admitted = 0;
                        for (Future<String> call : calls) {
                            try {
                                assertThat(call.get()).isEqualTo("ok");
                                admitted++;
                            } catch (ExecutionException full) {
                                assertThat(full).hasCauseInstanceOf(SemaphoreFullException.class);
                            }
                        }
                        assertThat(admitted).isEqualTo(5);
                        assertThat(mostInside).hasValue(5);
                    } finally {
                        release.countDown();
                        pool.shutdownNow();
                    }
                }));
    }

    @Test
    void limitExpressionIsEvaluatedPerCall() {
        node("a").run(context -> {
            Turnstile turnstile = context.getBean(Turnstile.class);
            PartnerApi api = context.getBean(PartnerApi.class);
            List<Lease> held = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                held.add(turnstile.semaphore("tier:gold", 4).tryAcquire().orElseThrow());
            }
            assertThatThrownBy(() -> api.tiered("gold", 2))
                    .isInstanceOf(SemaphoreFullException.class)
                    .hasMessageContaining("all 4 permits");
            assertThat(api.tiered("gold", 3)).as("limit 6 admits a fifth").isEqualTo(3);
            held.forEach(Lease::release);
        });
    }

    @Test
    void aMethodWithBothAnnotationsTakesTheLockOutsideThePermit() {
        node("a").run(context -> {
            Turnstile turnstile = context.getBean(Turnstile.class);
            Accounts accounts = context.getBean(Accounts.class);
            List<Object> inside = accounts.statement("7", () -> List.of(
                    LockContext.find().map(c -> (Object) c.kind()).orElse("none"),
                    turnstile.lock("statement:7").isLocked(),
                    turnstile.semaphore("statements", 1).availablePermits()));
            assertThat(inside).as("innermost the permit, the lock held, no permit left").containsExactly(
                    LeaseKind.SEMAPHORE, true, 0);
            Lease permit = turnstile.semaphore("statements", 1).tryAcquire().orElseThrow();
            assertThatThrownBy(() -> accounts.statement("8", () -> "ran"))
                    .isInstanceOf(SemaphoreFullException.class);
            assertThat(turnstile.lock("statement:8").isLocked())
                    .as("the lock taken outside was released when the permit was refused")
                    .isFalse();
            permit.release();
            assertThat(accounts.statement("8", () -> "ran")).isEqualTo("ran");
        });
    }

    @Test
    void nestedCallWithTheSameKeyJoinsTheOuterLease() {
        node("a").run(context -> {
            long[] tokens = context.getBean(Inventory.class).outerAndInner("nested");
            assertThat(tokens[1]).as("inner sees the outer token").isEqualTo(tokens[0]);
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void aNestedCallOnMoreKeysJoinsTheHeldOnesAndTakesTheRestInSortedOrder() {
        node("a").run(context -> {
            Inventory inventory = context.getBean(Inventory.class);
            try (Turnstile other = Turnstile.builder(redis.server().client()).build()) {
                GuardedServices.OTHER.set(other);
                long start = System.nanoTime();
                List<Object> outer = inventory.holdOneThenBoth("a", "b");
                assertThat(Duration.ofNanos(System.nanoTime() - start))
                        .as("the inner call does not wait for its own thread's lock")
                        .isLessThan(Duration.ofMillis(900));
                List<Object> inner = (List<Object>) outer.get(1);
                assertThat(inner.get(0)).isEqualTo(List.of("item:a", "item:b"));
                java.util.Map<String, Long> tokens = (java.util.Map<String, Long>) inner.get(1);
                assertThat(tokens).containsOnlyKeys("item:a", "item:b");
                assertThat(tokens.get("item:a")).as("the held key keeps its token").isEqualTo(outer.get(0));
                assertThat(inner.subList(2, 4)).as("both keys taken inside").containsExactly(true, true);
                assertThat(outer.subList(2, 4))
                        .as("after the inner call: the key it took is free, the held one still taken")
                        .containsExactly(false, true);
                assertThat(other.lock("item:a").isLocked()).isFalse();

                // A missing key that sorts before a held one would be taken out of the sorted order
                // every multi-key lock keeps, and could deadlock: refused at once, nothing taken.
                long refused = System.nanoTime();
                assertThatThrownBy(() -> inventory.holdOneThenBoth("d", "c"))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("Inventory.both(String, String)")
                        .hasMessageContaining("[item:c, item:d]")
                        .hasMessageContaining("holds [item:d]");
                assertThat(Duration.ofNanos(System.nanoTime() - refused)).isLessThan(Duration.ofMillis(900));
                assertThat(other.lock("item:c").isLocked()).isFalse();
                assertThat(other.lock("item:d").isLocked()).isFalse();
            } finally {
                GuardedServices.OTHER.set(null);
            }
        });
    }

    @Test
    void severalKeysAreLockedTogetherInSortedOrder() {
        node("a").run(context -> {
            assertThat(context.getBean(Inventory.class).transfer("b", "a")).containsExactly("account:a", "account:b");
        });
    }

    @Test
    void failurePoliciesApplyWhenTheLockIsBusy() {
        node("a").run(context -> {
            Inventory inventory = context.getBean(Inventory.class);
            Turnstile other = Turnstile.builder(redis.server().client()).build();
            Lease busy = other.lock("busy:x").acquire(Duration.ZERO, null);
            try {
                assertThat(inventory.withFallback("x")).isEqualTo("busy x LockAcquisitionException");
                assertThatThrownBy(() -> inventory.throwing("x"))
                        .isInstanceOf(LockAcquisitionException.class)
                        .hasMessageContaining("'busy:x'");
                assertThat(inventory.skipString("x")).isNull();
                assertThat(inventory.skipOptional("x")).isEmpty();
                assertThat(inventory.skipFuture("x").get()).isNull();
                StepVerifier.create(inventory.skipMono("x")).verifyComplete();
                StepVerifier.create(inventory.skipFlux("x")).verifyComplete();
                AtomicInteger ran = new AtomicInteger();
                inventory.skipVoid("x", ran::incrementAndGet);
                assertThat(ran).hasValue(0);
            } finally {
                busy.release();
                other.close();
            }
            assertThat(inventory.skipString("x")).isEqualTo("ran");
            assertThat(inventory.skipOptional("x")).contains("ran");
        });
    }

    @Test
    void conditionDecidesWhetherToLock() {
        node("a").run(context -> {
            Inventory inventory = context.getBean(Inventory.class);
            assertThat(inventory.conditional("locked-1")).isEqualTo("when:locked-1");
            assertThat(inventory.conditional("free-1")).isEqualTo("no lock");
        });
    }

    @Test
    void completableFutureKeepsTheLockUntilItCompletes() {
        node("a").run(context -> {
            CompletableFuture<String> result = new CompletableFuture<>();
            CompletableFuture<String> returned =
                    context.getBean(Inventory.class).later("f", result);
            assertThat(locked("async:f")).isTrue();
            result.complete("done");
            assertThat(returned.get()).isEqualTo("done");
            assertThat(locked("async:f"))
                    .as("released before the caller saw completion")
                    .isFalse();
        });
    }

    @Test
    void monoAcquiresOnSubscribeAndReleasesOnCompleteOrCancel() {
        node("a").run(context -> {
            Inventory inventory = context.getBean(Inventory.class);
            Sinks.One<String> sink = Sinks.one();
            Mono<String> mono = inventory.mono("m", sink.asMono());
            assertThat(locked("reactive:m")).as("nothing before subscribe").isFalse();
            AtomicReference<String> value = new AtomicReference<>();
            Disposable subscription = mono.subscribe(value::set);
            await().atMost(Duration.ofSeconds(5)).until(() -> locked("reactive:m"));
            sink.tryEmitValue("v");
            await().atMost(Duration.ofSeconds(5)).until(() -> !locked("reactive:m"));
            assertThat(value).hasValue("v");
            subscription.dispose();

            Disposable cancelled = inventory.mono("c", Mono.never()).subscribe();
            await().atMost(Duration.ofSeconds(5)).until(() -> locked("reactive:c"));
            cancelled.dispose();
            await().atMost(Duration.ofSeconds(5)).until(() -> !locked("reactive:c"));

            StepVerifier.create(inventory.flux("f", Flux.just("1", "2")))
                    .expectNext("1", "2")
                    .verifyComplete();
            assertThat(locked("reactive:f")).isFalse();
        });
    }

    @Test
    void lockIsTakenBeforeTheTransactionBeginsAndReleasedAfterItCommits() {
        node("a").run(context -> {
            RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
            transactions.probe = () -> locked("tx:t1");
            assertThat(context.getBean(Inventory.class).transactional("t1", () -> "work"))
                    .isEqualTo("work");
            assertThat(transactions.events).containsExactly("begin, lock held", "commit, lock held");
            assertThat(locked("tx:t1")).isFalse();
        });
    }

    @Test
    void releaseWaitsForASurroundingTransactionToComplete() {
        node("a").run(context -> {
            RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
            transactions.probe = () -> locked("tx:t2");
            Inventory inventory = context.getBean(Inventory.class);
            new TransactionTemplate(transactions).executeWithoutResult(status -> {
                inventory.joinsOuterTransaction("t2");
                assertThat(locked("tx:t2"))
                        .as("still held after the method, inside the transaction")
                        .isTrue();
            });
            assertThat(transactions.events).containsExactly("begin, lock free", "commit, lock held");
            assertThat(locked("tx:t2")).isFalse();
        });
    }

    @Test
    void theSameKeyTwiceInOneTransactionJoinsTheLeaseWaitingForTheCommitOnOneBeanAndAcrossBeans() {
        node("a").run(context -> {
            RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
            transactions.probe = () -> locked("account:acct-1");
            Accounts accounts = context.getBean(Accounts.class);
            Audit audit = context.getBean(Audit.class);
            long[] tokens = new TransactionTemplate(transactions).execute(status -> {
                long debit = accounts.debit("acct-1", 500);
                long credit = accounts.credit("acct-1", 500);
                long record = audit.record("acct-1");
                return new long[] {debit, credit, record};
            });
            assertThat(tokens[1]).as("credit joined the debit's lease").isEqualTo(tokens[0]);
            assertThat(tokens[2]).as("another bean joined it too").isEqualTo(tokens[0]);
            assertThat(transactions.events).containsExactly("begin, lock free", "commit, lock held");
            assertThat(locked("account:acct-1")).as("released once, after the commit").isFalse();
            assertThat(context.getBean(Turnstile.class).lock("account:acct-1").tryAcquire(Duration.ZERO, null))
                    .as("free for the next caller")
                    .hasValueSatisfying(lease -> {
                        assertThat(lease.fencingToken()).isGreaterThan(tokens[0]);
                        lease.release();
                    });
        });
    }

    @Test
    void anInnerRequiresNewTransactionJoinsTheOuterTransactionsLeaseInsteadOfWaitingForItself() {
        node("a").run(context -> {
            RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
            Accounts accounts = context.getBean(Accounts.class);
            TransactionTemplate inner = new TransactionTemplate(transactions);
            inner.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
            new TransactionTemplate(transactions).executeWithoutResult(status -> {
                long debit = accounts.debit("acct-4", 500);
                long credit = inner.execute(innerStatus -> accounts.credit("acct-4", 500));
                assertThat(credit).isEqualTo(debit);
                assertThat(locked("account:acct-4"))
                        .as("held until the outer transaction completes")
                        .isTrue();
            });
            assertThat(locked("account:acct-4")).isFalse();
        });
    }

    @Test
    void aJoiningCallThatNeedsALongerFixedLeaseExtendsTheJoinedOne() {
        node("a").run(context -> {
            RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
            Ledger ledger = context.getBean(Ledger.class);
            new TransactionTemplate(transactions).executeWithoutResult(status -> {
                ledger.open("l1");
                assertThat(ledger.settle("l1"))
                        .as("the 300ms lease was extended to settle's 30s")
                        .isGreaterThan(20_000);
            });
            assertThat(locked("ledger:l1")).isFalse();
        });
    }

    @Test
    void aJoinedLeaseIsReleasedAfterARollback() {
        node("a").run(context -> {
            RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
            Accounts accounts = context.getBean(Accounts.class);
            new TransactionTemplate(transactions).executeWithoutResult(status -> {
                long debit = accounts.debit("acct-2", 500);
                assertThat(accounts.credit("acct-2", 500)).isEqualTo(debit);
                status.setRollbackOnly();
            });
            assertThat(transactions.events).containsExactly("begin, lock free", "rollback");
            assertThat(locked("account:acct-2")).isFalse();
        });
    }

    @Test
    void anotherThreadDoesNotJoinALeaseWaitingForThisThreadsTransaction() throws Exception {
        node("a").run(context -> {
            RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
            Accounts accounts = context.getBean(Accounts.class);
            new TransactionTemplate(transactions).executeWithoutResult(status -> {
                accounts.debit("acct-3", 500);
                CompletableFuture<Long> other = CompletableFuture.supplyAsync(() -> accounts.credit("acct-3", 1));
                assertThatThrownBy(other::join).hasCauseInstanceOf(LockAcquisitionException.class);
            });
            assertThat(locked("account:acct-3")).isFalse();
        });
    }

    @Test
    void rollbackModeRefusesToCommitAfterTheLeaseWasLost() {
        node("a").withPropertyValues("turnstile.lock.on-lease-lost=rollback").run(context -> {
            RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
            transactions.probe = () -> true;
            assertThatThrownBy(() -> context.getBean(Inventory.class).transactionalOutlivingItsLease("t3"))
                    .isInstanceOf(LockLostException.class);
            assertThat(transactions.events).containsExactly("begin, lock held", "rollback");
        });
    }

    @Test
    void interruptModeInterruptsAMethodWhoseLeaseIsLost() {
        node("a").withPropertyValues("turnstile.lock.on-lease-lost=interrupt").run(context -> {
            assertThat(context.getBean(Inventory.class).outlivesItsLease("i1")).isEqualTo("interrupted");
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        });
    }

    @Test
    void logModeLetsTheMethodRunOn() {
        node("a").run(context -> {
            assertThat(context.getBean(Inventory.class).outlivesItsLease("i2")).isEqualTo("ran to the end");
        });
    }

    @Test
    void classesAreProxiedWithCglibAndInterfacesWithJdkProxies() {
        node("a").run(context -> {
            assertThat(AopUtils.isCglibProxy(context.getBean(Inventory.class))).isTrue();
            assertThat(AopUtils.isJdkDynamicProxy(context.getBean(PartnerApi.class)))
                    .isTrue();
        });
    }

    private static boolean locked(String name) {
        return redis.server().client().exists("turnstile:lock:{" + name + "}");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class Services {

        @Bean
        Inventory inventory(Environment environment, ObjectProvider<Inventory> self) {
            return new Inventory(environment.getProperty("node", "a"), self);
        }

        @Bean
        Accounts accounts() {
            return new Accounts();
        }

        @Bean
        Ledger ledger() {
            return new Ledger();
        }

        @Bean
        Audit audit() {
            return new Audit();
        }

        @Bean
        PartnerApi partnerApi() {
            return new PartnerApiClient();
        }

        @Bean
        RecordingTransactionManager transactionManager() {
            return new RecordingTransactionManager();
        }
    }

    /** A transaction manager that records what it did and whether the lock was held then. */
    static final class RecordingTransactionManager extends AbstractPlatformTransactionManager {

        private static final long serialVersionUID = 1L;

        final List<String> events = new CopyOnWriteArrayList<>();
        transient BooleanSupplier probe = () -> false;

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
            this.events.add("begin, lock " + (this.probe.getAsBoolean() ? "held" : "free"));
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            this.events.add("commit, lock " + (this.probe.getAsBoolean() ? "held" : "free"));
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
            this.events.add("rollback");
        }
    }
}
