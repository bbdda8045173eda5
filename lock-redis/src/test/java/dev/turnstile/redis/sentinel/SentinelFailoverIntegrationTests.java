package dev.turnstile.redis.sentinel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseLostEvent;
import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.RedisSentinelGroup;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * A master, one replica, three Sentinels. The master dies; the replica takes over. Without WAIT, a
 * grant that had not reached the replica is lost and a second owner gets in; with {@code
 * minReplicas}, such a grant is never handed out.
 */
class SentinelFailoverIntegrationTests {

    @Test
    void clientsContinueOnTheNewMasterAndFencingTokensKeepIncreasing() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start(1);
                UnifiedJedis client = group.newClient(Duration.ofMillis(500));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            long before;
            try (Lease lease = turnstile.lock("orders").acquire(Duration.ZERO, null)) {
                before = lease.fencingToken();
            }
            int oldMaster = group.currentMasterPort();
            group.initialMaster().kill();
            group.awaitFailover(oldMaster, Duration.ofSeconds(30));
            Lease after = acquireOnceTheClientFollows(turnstile, "orders");
            assertThat(after.fencingToken()).isGreaterThan(before);
            after.release();
        }
    }

    @Test
    void grantLostBeforeReplicationLetsASecondOwnerInWithoutWaitAndNeverWithIt() {
        int withoutWait = doubleGrant(0);
        int withWait = doubleGrant(1);
        System.out.printf(
                "Failover after a grant the replica never saw: %d double grant(s) without WAIT,"
                        + " %d with minReplicas=1%n",
                withoutWait, withWait);
        assertThat(withoutWait)
                .as("the known hole: the promoted replica never had the lock")
                .isEqualTo(1);
        assertThat(withWait)
                .as("with WAIT the grant is refused instead of lost")
                .isZero();
    }

    @Test
    void underMinReplicasAnExtensionOrRenewalNoReplicaConfirmedIsNotClaimed() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start(1);
                UnifiedJedis client = group.newClient(Duration.ofMillis(500));
                Turnstile turnstile = Turnstile.builder(client)
                        .minReplicas(1, Duration.ofMillis(200))
                        .defaultLease(Duration.ofSeconds(1))
                        .build()) {
            Lease fixed = turnstile.lock("extended").acquire(Duration.ZERO, Duration.ofSeconds(3));
            Lease shortened = turnstile.lock("shortened").acquire(Duration.ZERO, Duration.ofSeconds(60));
            Lease watched = turnstile.lock("renewed").acquire(Duration.ZERO, null);
            List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
            watched.onLost(lost::add);

            group.replicas().get(0).pause();
            try (Jedis master = group.initialMaster().connect()) {
                master.sendCommand(Protocol.Command.CLIENT, "KILL", "TYPE", "replica");
            }
            try {
                assertThatThrownBy(() -> fixed.extend(Duration.ofSeconds(60)))
                        .isInstanceOf(RedisUnavailableException.class)
                        .hasMessageContaining("reached only 0 of the 1 replicas");
                assertThat(fixed.remaining())
                        .as("the new deadline is not claimed")
                        .isLessThanOrEqualTo(Duration.ofSeconds(3));
                // The shorter time to live reached the master although WAIT failed: the lease must
                // not go on claiming its old 60 s.
                assertThatThrownBy(() -> shortened.extend(Duration.ofSeconds(1)))
                        .isInstanceOf(RedisUnavailableException.class);
                assertThat(shortened.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(1));
                await().atMost(Duration.ofSeconds(4)).until(() -> lost.size() == 1);
                assertThat(lost.get(0).reason()).isEqualTo(LeaseLostEvent.Reason.RENEWAL_MISSED);
            } finally {
                group.replicas().get(0).resume();
            }
        }
    }

    @Test
    void underMinReplicasAHoldNoReplicaConfirmedIsReportedNotClaimedKept() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start(1);
                UnifiedJedis client = group.newClient(Duration.ofMillis(500));
                Turnstile turnstile = Turnstile.builder(client)
                        .minReplicas(1, Duration.ofMillis(200))
                        .build()) {
            Lease job = turnstile.lock("nightly-report").acquire(Duration.ZERO, Duration.ofSeconds(2));
            group.replicas().get(0).pause();
            try (Jedis master = group.initialMaster().connect()) {
                master.sendCommand(Protocol.Command.CLIENT, "KILL", "TYPE", "replica");
            }
            try {
                // The job ran; it asks that nobody run it again for a minute. Only the master has that.
                assertThatThrownBy(() -> job.releaseAfter(Duration.ofMinutes(1)))
                        .isInstanceOf(RedisUnavailableException.class)
                        .hasMessageContaining("hold of lock 'nightly-report'")
                        .hasMessageContaining("reached only 0 of the 1 replicas");
                try (Jedis master = group.initialMaster().connect()) {
                    assertThat(master.pttl("turnstile:lock:{nightly-report}"))
                            .as("the master keeps the hold with its time to live")
                            .isGreaterThan(Duration.ofSeconds(30).toMillis());
                }
            } finally {
                group.replicas().get(0).resume();
            }
        }
    }

    @Test
    void aFailoverThatLostTheLastIncrementGivesTheNextTokenFromTheNewMastersClockAboveTheLost() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start(1);
                UnifiedJedis client = group.newClient(Duration.ofMillis(500));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            group.replicas().get(0).pause();
            try (Jedis master = group.initialMaster().connect()) {
                master.sendCommand(Protocol.Command.CLIENT, "KILL", "TYPE", "replica");
            }
            long lost;
            try (Lease lease = turnstile.lock("ledger").acquire(Duration.ZERO, null)) {
                lost = lease.fencingToken();
            }
            int oldMaster = group.currentMasterPort();
            group.initialMaster().kill();
            group.replicas().get(0).resume();
            group.awaitFailover(oldMaster, Duration.ofSeconds(30));
            try (Jedis promoted = group.replicas().get(0).connect()) {
                assertThat(promoted.get("turnstile:fence:{ledger}"))
                        .as("the promoted replica never had the counter's increment")
                        .isNull();
            }
            Lease after = acquireOnceTheClientFollows(turnstile, "ledger");
            // The promoted replica shares this machine's clock, which has passed the lost token.
            assertThat(after.fencingToken()).isGreaterThan(lost);
            after.release();
        }
    }

    /** Returns 1 if two owners held the lock at once across a failover, else 0. */
    private int doubleGrant(int minReplicas) {
        try (RedisSentinelGroup group = RedisSentinelGroup.start(1);
                UnifiedJedis clientA = group.newClient(Duration.ofMillis(500));
                Turnstile a = Turnstile.builder(clientA)
                        .minReplicas(minReplicas, Duration.ofMillis(200))
                        .build()) {
            // Replication breaks: the replica is frozen and the master drops its link, so the next
            // write never reaches the replica (not even into its socket buffer).
            group.replicas().get(0).pause();
            try (Jedis master = group.initialMaster().connect()) {
                master.sendCommand(Protocol.Command.CLIENT, "KILL", "TYPE", "replica");
            }
            AtomicReference<Lease> first = new AtomicReference<>();
            if (minReplicas == 0) {
                first.set(a.lock("invoice").acquire(Duration.ZERO, Duration.ofSeconds(60)));
            } else {
                assertThatThrownBy(() -> a.lock("invoice").acquire(Duration.ZERO, Duration.ofSeconds(60)))
                        .isInstanceOf(RedisUnavailableException.class)
                        .hasMessageContaining("reached only 0 of the 1 replicas");
            }
            int oldMaster = group.currentMasterPort();
            group.initialMaster().kill();
            group.replicas().get(0).resume();
            group.awaitFailover(oldMaster, Duration.ofSeconds(30));
            try (UnifiedJedis clientB = group.newClient(Duration.ofMillis(500));
                    Turnstile b = Turnstile.builder(clientB).build()) {
                Lease second = acquireOnceTheClientFollows(b, "invoice");
                boolean both = first.get() != null && first.get().isHeld() && second.isHeld();
                second.release();
                return both ? 1 : 0;
            }
        }
    }

    private static Lease acquireOnceTheClientFollows(Turnstile turnstile, String name) {
        AtomicReference<Lease> lease = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(30))
                .ignoreException(RedisUnavailableException.class)
                .until(() -> {
                    Optional<Lease> granted = turnstile.lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(30));
                    granted.ifPresent(lease::set);
                    return granted.isPresent();
                });
        return lease.get();
    }
}
