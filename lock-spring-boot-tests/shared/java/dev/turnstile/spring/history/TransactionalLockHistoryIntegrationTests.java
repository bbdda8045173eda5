package dev.turnstile.spring.history;

import static org.assertj.core.api.Assertions.assertThat;
import redis.clients.jedis.UnifiedJedis;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.TurnstileException;
import dev.turnstile.spring.BootLine;
import dev.turnstile.spring.LockContext;
import dev.turnstile.test.history.History;
import dev.turnstile.test.history.HistoryChecker;
import dev.turnstile.test.redis.PartitionProxy;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

/**
 * {@code @DistributedLock} on a {@code @Transactional} method, under faults, judged by the history
 * checker. Two application contexts (the nodes; the first reaches Redis through a {@link
 * PartitionProxy}) run the method from three threads each. A transaction manager records every
 * transaction as a hold: from its begin, with the fencing token of the lease the method runs
 * under, to its commit; a loss the lease reports is recorded too. So the checker judges what the
 * starter promises: the lock is taken before the transaction begins and released after it
 * commits, and two nodes' transactions on one key never overlap unless the earlier one's lease
 * was reported lost. {@code -Dhistory.schedule=long} runs each cell for 15 s instead of 1.5 s.
 */
class TransactionalLockHistoryIntegrationTests {

    private static final boolean LONG = "long".equals(System.getProperty("history.schedule"));
    private static final Duration CELL = LONG ? Duration.ofSeconds(15) : Duration.ofMillis(1500);
    private static final Duration LEASE = Duration.ofMillis(600);
    private static final Duration WAIT = Duration.ofSeconds(2);
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final int THREADS = 3;
    /** A forced release is seen at the next renewal (a third of a lease) or at the release after the commit. */
    private static final Duration LOSS_BOUND = LEASE.dividedBy(3).plusMillis(200);
    /** A few Redis calls that each time out. */
    private static final Duration HANG_BOUND = TIMEOUT.multipliedBy(4);
    private static final String KEY = "ledger:history";

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private ApplicationContextRunner node(String name, int port) {
        return new ApplicationContextRunner()
                .withConfiguration(BootLine.turnstile())
                .withUserConfiguration(Config.class)
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + port,
                        "spring.data.redis.timeout=" + TIMEOUT.toMillis() + "ms",
                        "turnstile.default-lease=" + LEASE.toMillis() + "ms",
                        "node=" + name);
    }

    @ParameterizedTest(name = "under {0}")
    @EnumSource(names = {"REDIS_PAUSED_SHORT", "REDIS_PAUSED_LONG", "FORCE_RELEASE", "PARTITION"})
    void everyTransactionCommitsUnderItsLock(SpringFault fault) throws Exception {
        History history = History.inMemory();
        Nemesis nemesis = new Nemesis();
        AtomicInteger withoutLock = new AtomicInteger();
        try (PartitionProxy proxy = PartitionProxy.to(redis.server().hostAndPort());
                UnifiedJedis operatorClient = redis.server().newClient(TIMEOUT)) {
            Turnstile operator = Turnstile.builder(operatorClient).build();
            node("node-1", proxy.hostAndPort().getPort())
                    .run(a -> node("node-2", redis.server().port()).run(b -> {
                        List<ApplicationContext> nodes = List.of(a, b);
                        for (ApplicationContext node : nodes) {
                            RecordingTransactions transactions = node.getBean(RecordingTransactions.class);
                            transactions.withoutLock = withoutLock;
                        }
                        long end = System.nanoTime() + CELL.toNanos();
                        List<Thread> workers = new ArrayList<>();
                        for (ApplicationContext node : nodes) {
                            String name = node.getEnvironment().getProperty("node");
                            Ledger ledger = node.getBean(Ledger.class);
                            for (int i = 0; i < THREADS; i++) {
                                Thread worker = new Thread(() -> work(ledger, history, name, end), name + "-" + i);
                                worker.start();
                                workers.add(worker);
                            }
                        }
                        try {
                            switch (fault) {
                                case REDIS_PAUSED_SHORT -> nemesis.pauseRedis(redis.server(), end, 300, LEASE.dividedBy(4));
                                case REDIS_PAUSED_LONG -> nemesis.pauseRedis(redis.server(), end, 400, LEASE.multipliedBy(2));
                                case FORCE_RELEASE -> nemesis.forceRelease(operator, KEY, end, 50);
                                case PARTITION -> nemesis.partition(proxy, end, 300, LEASE.multipliedBy(2));
                                default -> throw new IllegalArgumentException("not a fault of this test: " + fault);
                            }
                        } finally {
                            redis.server().resume();
                            proxy.heal();
                        }
                        for (Thread worker : workers) {
                            worker.join(TimeUnit.SECONDS.toMillis(30));
                        }
                    }));
            operator.close();
        }
        HistoryChecker.Verdict verdict =
                HistoryChecker.withBounds(LOSS_BOUND, HANG_BOUND).check(history.holds());
        System.out.println("@DistributedLock @Transactional under " + fault.label + " (" + nemesis.applied()
                + " faults): " + verdict);
        assertThat(nemesis.applied()).as("faults applied").isPositive();
        assertThat(withoutLock.get()).as("transactions begun without the lock").isZero();
        assertThat(verdict.holds()).as("the nodes made progress").isPositive();
        assertThat(verdict.unexplainedOverlaps()).as("overlaps explained: %s", verdict).isZero();
        assertThat(verdict.tokenInversions()).as("tokens increase: %s", verdict).isZero();
        assertThat(verdict.hangs()).as("nothing hangs: %s", verdict).isZero();
        assertThat(verdict.lateLosses()).as("losses reported in time: %s", verdict).isZero();
    }

    /** Calls the guarded method until {@code end}, recording each call. */
    private static void work(Ledger ledger, History history, String node, long end) {
        while (System.nanoTime() < end) {
            Call call = new Call(history.begin(node, "transactional lock", KEY, 1, WAIT));
            Call.CURRENT.set(call);
            try {
                ledger.post(KEY);
            } catch (LockAcquisitionException e) {
                call.notBegun(false);
            } catch (TurnstileException e) {
                // Redis unreachable: retried after a moment, as an application would.
                call.notBegun(true);
                Nemesis.park(TimeUnit.MILLISECONDS.toNanos(20));
            } finally {
                Call.CURRENT.remove();
            }
        }
    }

    /** One call of the guarded method, recorded from its transaction's begin to its end. */
    static final class Call {

        static final ThreadLocal<Call> CURRENT = new ThreadLocal<>();

        private final History.Recording recording;
        private LockContext context;

        Call(History.Recording recording) {
            this.recording = recording;
        }

        /** The transaction began, under {@code context}'s lease. */
        void began(LockContext context) {
            this.context = context;
            this.recording.granted(context.fencingToken());
            History.Recording recording = this.recording;
            context.lease().onLost(event -> recording.lost(event.overdue()));
        }

        /** The transaction ended: its hold ends; a lease no longer held then is reported lost. */
        void ended() {
            this.recording.release(this.context::isHeld);
        }

        /** The call failed before its transaction began. */
        void notBegun(boolean failed) {
            if (this.context != null) {
                return;
            }
            if (failed) {
                this.recording.failed();
            } else {
                this.recording.refused();
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class Config {

        @Bean
        Ledger ledger() {
            return new Ledger();
        }

        @Bean
        RecordingTransactions transactionManager() {
            return new RecordingTransactions();
        }
    }

    static class Ledger {

        /** A short transaction under the lock. */
        @DistributedLock(key = "#key", waitTime = "2s")
        @Transactional
        public void post(String key) {
            Nemesis.park(ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(10) + 1));
        }
    }

    /**
     * A transaction manager with no resource that records each transaction of a {@link Call}: its
     * begin (under the lease of the guarded method, which must already be running) and its end.
     */
    static final class RecordingTransactions extends AbstractPlatformTransactionManager {

        private static final long serialVersionUID = 1L;

        transient volatile AtomicInteger withoutLock;

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
            Call call = Call.CURRENT.get();
            LockContext context = LockContext.find().orElse(null);
            if (context == null || !context.keys().contains(KEY)) {
                this.withoutLock.incrementAndGet();
                return;
            }
            call.began(context);
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            end();
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
            end();
        }

        private static void end() {
            Call call = Call.CURRENT.get();
            if (call != null && call.context != null) {
                call.ended();
            }
        }
    }
}
