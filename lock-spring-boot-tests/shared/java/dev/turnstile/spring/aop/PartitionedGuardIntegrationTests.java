package dev.turnstile.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.redis.LockLostException;
import dev.turnstile.spring.BootLine;
import dev.turnstile.spring.LockContext;
import dev.turnstile.test.redis.PartitionProxy;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The starter's {@code on-lease-lost} policies when the node running a guarded method is cut off
 * from Redis by a network partition (bytes held back, nothing closed): each fires at the lease's
 * deadline, while the partition lasts.
 */
class PartitionedGuardIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private PartitionProxy proxy;

    @BeforeEach
    void startProxy() {
        this.proxy = PartitionProxy.to(redis.server().hostAndPort());
    }

    @AfterEach
    void stopProxy() {
        this.proxy.close();
    }

    private ApplicationContextRunner node(String onLeaseLost) {
        return new ApplicationContextRunner()
                .withConfiguration(BootLine.turnstile())
                .withUserConfiguration(Services.class)
                .withBean(PartitionProxy.class, () -> this.proxy)
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + this.proxy.hostAndPort().getPort(),
                        "spring.data.redis.timeout=10s",
                        "turnstile.default-lease=1s",
                        "turnstile.lock.on-lease-lost=" + onLeaseLost);
    }

    @Test
    void interruptModeInterruptsTheCutOffMethodAtItsDeadline() {
        node("interrupt").run(context -> {
            assertThat(context.getBean(Job.class).waitForInterrupt("i")).isEqualTo("interrupted while cut off");
        });
    }

    @Test
    void rollbackModeRefusesTheCommitOfTheCutOffMethodsTransaction() {
        node("rollback").run(context -> {
            Job job = context.getBean(Job.class);
            TransactionTemplate transactions = new TransactionTemplate(context.getBean(RecordingTransactions.class));
            assertThatThrownBy(() -> job.commitAfterLoss("r", transactions))
                    .isInstanceOf(LockLostException.class)
                    .hasMessageContaining("'r'");
        });
    }

    @Test
    void logModeLogsTheLossWhileCutOff() {
        ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger)
                org.slf4j.LoggerFactory.getLogger("dev.turnstile.lease");
        ListAppender<ILoggingEvent> warnings = new ListAppender<>();
        warnings.start();
        logger.addAppender(warnings);
        try {
            node("log").run(context -> {
                assertThat(context.getBean(Job.class).runUntilLost("l")).isEqualTo("lost while cut off");
                // The lease stops being held at its local deadline; the watchdog's report of the loss
                // (and its log line) follows within the loss bound.
                org.awaitility.Awaitility.await()
                        .atMost(Duration.ofSeconds(2))
                        .ignoreExceptions()
                        .untilAsserted(() -> assertThat(List.copyOf(warnings.list))
                                .extracting(ILoggingEvent::getFormattedMessage)
                                .anySatisfy(message -> assertThat(message)
                                        .contains("Lost lock 'l'")
                                        .contains("RENEWAL_MISSED")));
            });
        } finally {
            logger.detachAppender(warnings);
        }
    }

    /** Guarded methods that cut the network themselves once inside, then wait for the loss. */
    public static class Job {
        private final PartitionProxy proxy;

        Job(PartitionProxy proxy) {
            this.proxy = proxy;
        }

        @DistributedLock(key = "#id")
        public String waitForInterrupt(String id) {
            this.proxy.partition();
            try {
                new CountDownLatch(1).await(10, TimeUnit.SECONDS);
                return "never interrupted";
            } catch (InterruptedException e) {
                return this.proxy.isPartitioned() ? "interrupted while cut off" : "interrupted after the heal";
            } finally {
                this.proxy.heal();
            }
        }

        @DistributedLock(key = "#id")
        public String commitAfterLoss(String id, TransactionTemplate transactions) {
            return transactions.execute(status -> {
                try {
                    return runUntilLost(id);
                } finally {
                    this.proxy.heal();
                }
            });
        }

        @DistributedLock(key = "#id")
        public String runUntilLost(String id) {
            this.proxy.partition();
            try {
                return waitFor(() -> !LockContext.current().isHeld(), Duration.ofSeconds(10))
                                && this.proxy.isPartitioned()
                        ? "lost while cut off"
                        : "not lost in time";
            } finally {
                this.proxy.heal();
            }
        }

        private static boolean waitFor(Supplier<Boolean> condition, Duration atMost) {
            long deadline = System.nanoTime() + atMost.toNanos();
            while (!condition.get()) {
                if (System.nanoTime() > deadline) {
                    return false;
                }
                Thread.onSpinWait();
            }
            return true;
        }
    }

    /** A transaction manager with no resource: only its synchronizations and listeners matter here. */
    static final class RecordingTransactions
            extends org.springframework.transaction.support.AbstractPlatformTransactionManager {
        private static final long serialVersionUID = 1L;

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, org.springframework.transaction.TransactionDefinition definition) {}

        @Override
        protected void doCommit(org.springframework.transaction.support.DefaultTransactionStatus status) {}

        @Override
        protected void doRollback(org.springframework.transaction.support.DefaultTransactionStatus status) {}
    }

    @Configuration(proxyBeanMethods = false)
    static class Services {
        @Bean
        Job job(PartitionProxy proxy) {
            return new Job(proxy);
        }

        @Bean
        RecordingTransactions transactionManager() {
            return new RecordingTransactions();
        }
    }
}
