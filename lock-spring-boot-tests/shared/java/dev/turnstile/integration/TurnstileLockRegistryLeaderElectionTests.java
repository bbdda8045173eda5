package dev.turnstile.integration;

import static org.assertj.core.api.Assertions.assertThat;
import redis.clients.jedis.UnifiedJedis;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.history.HistoryChecker;
import dev.turnstile.test.history.HistoryClock;
import dev.turnstile.test.history.Hold;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Spring Integration's {@code LockRegistryLeaderInitiator} on {@link TurnstileLockRegistry}, one
 * node per registry, all on one Redis: the leadership intervals each node is told of (granted,
 * revoked) never overlap, except while a leader that lost its lock has not yet been told.
 */
class TurnstileLockRegistryLeaderElectionTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final String ROLE = "turnstile-leader";
    private static final Duration HEARTBEAT = Duration.ofSeconds(3);
    private static final Duration LEASE = Duration.ofMillis(900);
    /** Scheduling slack on a busy machine. */
    private static final Duration SLACK = Duration.ofMillis(500);

    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void tearDown() {
        this.nodes.forEach(Node::close);
    }

    @Test
    void aLeaderWhoseLockIsForceReleasedIsRevokedAtItsNextHeartbeatAndNoOtherOverlapOccurs() {
        for (int i = 0; i < 3; i++) {
            this.nodes.add(Node.start("node-" + i, redis.server().newClient(Duration.ofSeconds(2))));
        }
        Node first = await().atMost(Duration.ofSeconds(15)).until(this::leader, Optional::isPresent).orElseThrow();
        // Its first heartbeat follows the grant at once: the loss falls well inside the next interval.
        long grantedAt = first.lastGrantNanos();
        await().atMost(Duration.ofSeconds(5)).until(() -> System.nanoTime() - grantedAt >= millis(500));

        long forcedAt = System.nanoTime();
        try (Turnstile operator = Turnstile.builder(redis.server().client()).build()) {
            assertThat(operator.lock(ROLE).forceRelease()).containsExactly(ROLE);
        }
        Duration detection = HEARTBEAT.plus(LEASE).plus(SLACK);
        await().atMost(detection.plus(HEARTBEAT).plus(HEARTBEAT))
                .until(() -> !first.isLeader() && this.nodes.stream().anyMatch(Node::isLeader));
        long revokedAt = first.lastRevokeNanos();
        // Every node gets at least one more heartbeat: none may lead alongside the new leader.
        await().atMost(HEARTBEAT.multipliedBy(3))
                .until(() -> System.nanoTime() - revokedAt >= HEARTBEAT.plus(SLACK).toNanos());
        stopAll();

        List<Interval> intervals = new ArrayList<>();
        this.nodes.forEach(node -> intervals.addAll(node.intervals()));
        Interval lost = intervals.stream()
                .filter(interval -> interval.node() == first && interval.contains(forcedAt))
                .findFirst()
                .orElseThrow();
        long worstOverlap = worstOverlapOf(lost, intervals);
        System.out.printf(
                "Force-released leader %s revoked %d ms after the release; worst overlap %d ms (bound %d ms)%n",
                first.id,
                Duration.ofNanos(revokedAt - forcedAt).toMillis(),
                Duration.ofNanos(worstOverlap).toMillis(),
                detection.toMillis());
        assertThat(Duration.ofNanos(worstOverlap))
                .as("two leaders only until the old one's next heartbeat after its watchdog found the loss")
                .isLessThanOrEqualTo(detection);
        assertThat(Duration.ofNanos(revokedAt - forcedAt)).isLessThanOrEqualTo(detection);

        // The same intervals as holds, judged by the history checker: the only overlap is the one
        // whose lower-token leader was told of its loss (revoked), within a heartbeat and a lease.
        List<Hold> holds = new ArrayList<>();
        intervals.forEach(interval -> holds.add(interval.asHold(interval == lost)));
        HistoryChecker.Verdict verdict = HistoryChecker.withBounds(detection, HEARTBEAT).check(holds);
        System.out.println("Leader election under a forced release: " + verdict);
        assertThat(verdict.holds()).isGreaterThanOrEqualTo(2);
        assertThat(verdict.unexplainedOverlaps()).as("%s", verdict).isZero();
        assertThat(verdict.tokenInversions()).as("%s", verdict).isZero();
        assertThat(verdict.lateLosses()).as("%s", verdict).isZero();
        assertThat(verdict.hangs()).as("%s", verdict).isZero();
    }

    /** Asserts that only {@code lost} overlaps any other node's interval; returns its longest overlap. */
    private static long worstOverlapOf(Interval lost, List<Interval> intervals) {
        long worst = 0;
        for (int i = 0; i < intervals.size(); i++) {
            for (int j = i + 1; j < intervals.size(); j++) {
                Interval a = intervals.get(i);
                Interval b = intervals.get(j);
                long overlap = a.overlapNanos(b);
                if (a.node() == b.node() || overlap <= 0) {
                    continue;
                }
                System.out.printf(
                        "Leaders at once: %s and %s for %d ms%n", a, b, Duration.ofNanos(overlap).toMillis());
                assertThat(a == lost || b == lost)
                        .as("only the leader that lost its lock may overlap another: %s and %s", a, b)
                        .isTrue();
                worst = Math.max(worst, overlap);
            }
        }
        return worst;
    }

    private Optional<Node> leader() {
        return this.nodes.stream().filter(Node::isLeader).findFirst();
    }

    /** Stops the followers first, then the leader, so that nobody takes over while stopping. */
    private void stopAll() {
        this.nodes.stream().filter(node -> !node.isLeader()).forEach(Node::stop);
        this.nodes.forEach(Node::stop);
        await().atMost(Duration.ofSeconds(10)).until(() -> this.nodes.stream().noneMatch(Node::isLeader));
    }

    private static long millis(long millis) {
        return Duration.ofMillis(millis).toNanos();
    }

    /** When one node was leader, as its candidate was told: revoked at {@code Long.MAX_VALUE} if never. */
    record Interval(Node node, long grantedNanos, long revokedNanos, long token) {

        /** The interval as a hold of the leader lock; {@code lost}: its end was the report of a lost lock. */
        Hold asHold(boolean lost) {
            long granted = micros(this.grantedNanos);
            long revoked = this.revokedNanos == Long.MAX_VALUE ? -1 : micros(this.revokedNanos);
            return new Hold(
                    this.node.id, "leader", "leader", ROLE, 1, this.token, 0, granted, granted, revoked,
                    lost ? revoked : -1, -1, Hold.Outcome.GRANTED);
        }

        /** {@code System.nanoTime()} on the history's time base. */
        private static long micros(long nanos) {
            return HistoryClock.nowMicros() - (System.nanoTime() - nanos) / 1_000;
        }

        boolean contains(long nanos) {
            return this.grantedNanos <= nanos && nanos < this.revokedNanos;
        }

        long overlapNanos(Interval other) {
            return Math.min(this.revokedNanos, other.revokedNanos) - Math.max(this.grantedNanos, other.grantedNanos);
        }

        @Override
        public String toString() {
            return this.node.id + "[" + this.grantedNanos / 1_000_000 + ".."
                    + (this.revokedNanos == Long.MAX_VALUE ? "" : this.revokedNanos / 1_000_000) + " ms]";
        }
    }

    /** One application instance: its own Redis client, Turnstile, registry and leader initiator. */
    static final class Node extends DefaultCandidate {

        private final String id;
        private final UnifiedJedis client;
        private final Turnstile turnstile;
        private final LockRegistryLeaderInitiator initiator;
        private final List<Long> grants = new CopyOnWriteArrayList<>();
        private final List<Long> revokes = new CopyOnWriteArrayList<>();
        private final List<Long> tokens = new CopyOnWriteArrayList<>();
        private final TurnstileLockRegistry registry;

        private Node(String id, UnifiedJedis client) {
            super(id, ROLE);
            this.id = id;
            this.client = client;
            this.turnstile = Turnstile.builder(this.client).defaultLease(LEASE).build();
            this.registry = new TurnstileLockRegistry(this.turnstile);
            this.initiator = new LockRegistryLeaderInitiator(this.registry, this);
            this.initiator.setHeartBeatMillis(HEARTBEAT.toMillis());
        }

        static Node start(String id, UnifiedJedis client) {
            Node node = new Node(id, client);
            node.initiator.start();
            return node;
        }

        @Override
        public void onGranted(Context context) {
            // Told on the initiator's thread, which holds the lock: its fencing token is this term's.
            this.tokens.add(this.registry.obtain(ROLE).fencingToken());
            this.grants.add(System.nanoTime());
        }

        @Override
        public void onRevoked(Context context) {
            this.revokes.add(System.nanoTime());
        }

        boolean isLeader() {
            return this.grants.size() > this.revokes.size();
        }

        long lastGrantNanos() {
            return this.grants.get(this.grants.size() - 1);
        }

        long lastRevokeNanos() {
            return this.revokes.get(this.revokes.size() - 1);
        }

        List<Interval> intervals() {
            List<Interval> intervals = new ArrayList<>();
            for (int i = 0; i < this.grants.size(); i++) {
                long revoked = i < this.revokes.size() ? this.revokes.get(i) : Long.MAX_VALUE;
                intervals.add(new Interval(this, this.grants.get(i), revoked, this.tokens.get(i)));
            }
            return intervals;
        }

        void stop() {
            this.initiator.stop();
            await().atMost(Duration.ofSeconds(10)).until(() -> !isLeader());
        }

        void close() {
            try {
                this.initiator.destroy();
            } catch (Exception e) {
                throw new IllegalStateException("Could not stop the leader initiator of " + this.id, e);
            } finally {
                this.turnstile.close();
                this.client.close();
            }
        }
    }
}
