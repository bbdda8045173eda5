package dev.turnstile.redis.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseLostEvent;
import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.RedisServer;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/** Crashed holders, frozen holders, and a Redis that goes away. */
class LockFailureIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension(server -> server.persistent(true));

    /** What a waiter may take beyond the lease to see a lock come back: wake-up and one round trip. */
    static final Duration SLACK = Duration.ofMillis(500);

    @Test
    void lockOfAKilledHolderComesBackAfterTheLeaseAndNotBefore() {
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(2));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            ChildJvm holder = redis.startChild(LockHolderMain.class, "hold", port(), "crash", "1000", "30000");
            String[] acquired = holder.awaitLineStartingWith("ACQUIRED", Duration.ofSeconds(30))
                    .split(" ");
            long childSent = Long.parseLong(acquired[2]);
            long childReturned = Long.parseLong(acquired[3]);
            holder.kill();

            Lease lease = turnstile.lock("crash").acquire(Duration.ofSeconds(10), null);
            long acquiredAt = System.nanoTime();
            // The child's timestamps were taken before its acquire was sent and after it returned;
            // same CLOCK_MONOTONIC. Its key expired within 1 s of the latter.
            assertThat(Duration.ofNanos(acquiredAt - childSent))
                    .as("not before the lease")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(1000 - 2));
            assertThat(Duration.ofNanos(acquiredAt - childReturned))
                    .as("at most one lease (1 s) plus %s", SLACK)
                    .isLessThanOrEqualTo(Duration.ofMillis(1000).plus(SLACK));
            lease.release();
        }
    }

    @Test
    void watchdogLockOfAKilledHolderComesBackAfterOneLease() {
        ChildJvm holder = redis.startChild(LockHolderMain.class, "hold", port(), "crash-watchdog", "0", "1000");
        holder.awaitLineStartingWith("ACQUIRED", Duration.ofSeconds(30));
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(2));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            await().during(Duration.ofMillis(1500))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> turnstile.lock("crash-watchdog").isLocked());
            // The watchdog renewed the key to 1 s at most just before the kill: it expires within 1 s
            // of it.
            long killing = System.nanoTime();
            holder.kill();
            Optional<Lease> lease = turnstile.lock("crash-watchdog").tryAcquire(Duration.ofSeconds(5), null);
            long acquiredAt = System.nanoTime();
            assertThat(lease).isPresent();
            assertThat(Duration.ofNanos(acquiredAt - killing))
                    .as("at most one lease (1 s) plus %s after the holder was killed", SLACK)
                    .isLessThanOrEqualTo(Duration.ofMillis(1000).plus(SLACK));
            lease.get().release();
        }
    }

    @Test
    void frozenHolderFindsItsLockTakenAndCannotTouchTheNewOwners() {
        ChildJvm holder = redis.startChild(LockHolderMain.class, "hold", port(), "frozen", "0", "600");
        long staleToken = Long.parseLong(
                holder.awaitLineStartingWith("ACQUIRED", Duration.ofSeconds(30)).split(" ")[1]);
        holder.pause();
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(2));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            Lease current = turnstile.lock("frozen").acquire(Duration.ofSeconds(10), Duration.ofSeconds(30));
            String owner = client.get("turnstile:lock:{frozen}");
            holder.resume();

            // Frozen past its deadline, the holder's watchdog gives the lease up before touching Redis.
            holder.awaitLineStartingWith("LOST RENEWAL_MISSED", Duration.ofSeconds(10));
            holder.send("held");
            holder.awaitLineStartingWith("HELD false", Duration.ofSeconds(10));
            holder.send("extend 60000");
            holder.awaitLineStartingWith("EXTEND-FAILED LockLostException", Duration.ofSeconds(10));
            holder.send("release");
            holder.awaitLineStartingWith("RELEASED false", Duration.ofSeconds(10));

            assertThat(client.get("turnstile:lock:{frozen}")).isEqualTo(owner);
            assertThat(client.pttl("turnstile:lock:{frozen}")).isBetween(20_000L, 30_000L);
            assertThat(current.isHeld()).isTrue();
            assertThat(current.fencingToken()).isGreaterThan(staleToken);
            current.release();
        }
    }

    @Test
    void acquireFailsFastWhileRedisIsDownAndWorksAfterRestart() {
        RedisServer server = redis.server();
        try (UnifiedJedis client = server.newClient(Duration.ofMillis(500));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            server.kill();
            assertTimeoutPreemptively(
                    Duration.ofSeconds(5),
                    () -> assertThatThrownBy(() -> turnstile.lock("down").tryAcquire(Duration.ofSeconds(30), null))
                            .isInstanceOf(RedisUnavailableException.class)
                            .hasMessageContaining("acquire lock 'down'"));
            server.restart();
            try (Lease lease = turnstile.lock("down").acquire(Duration.ofSeconds(5), null)) {
                assertThat(lease.isHeld()).isTrue();
            }
        }
    }

    @Test
    void acquireAgainstAFrozenRedisFailsWithinTwoSocketTimeouts() {
        RedisServer server = redis.server();
        // A short lease: the acquire's script may already sit in a pooled connection's socket when
        // Redis freezes, run when it resumes and grant the lock to an owner that gave up (whose
        // release could not reach Redis either); that grant holds the name for its lease at most.
        Duration socketTimeout = Duration.ofMillis(500);
        try (UnifiedJedis client = server.newClient(socketTimeout);
                Turnstile turnstile = Turnstile.builder(client)
                        .defaultLease(Duration.ofSeconds(2))
                        .build()) {
            server.pause();
            long failedAfterNanos;
            try {
                long start = System.nanoTime();
                assertTimeoutPreemptively(
                        Duration.ofSeconds(5),
                        () -> assertThatThrownBy(
                                        () -> turnstile.lock("frozen-redis").tryAcquire(Duration.ofSeconds(30), null))
                                .isInstanceOf(RedisUnavailableException.class));
                failedAfterNanos = System.nanoTime() - start;
            } finally {
                server.resume();
            }
            System.out.printf("acquire against a frozen Redis failed after %d ms%n", failedAfterNanos / 1_000_000);
            // Two calls wait out the socket timeout: the acquire's script, then the release of what
            // it may have granted (with a 2 s socket timeout the acquire fails after 4 s).
            assertThat(Duration.ofNanos(failedAfterNanos))
                    .as("the acquire's failure: two socket timeouts of 500 ms and at most 1 s more")
                    .isLessThanOrEqualTo(socketTimeout.multipliedBy(2).plusSeconds(1));
            try (Lease lease = turnstile.lock("frozen-redis").acquire(Duration.ofSeconds(5), null)) {
                assertThat(lease.isHeld()).isTrue();
            }
        }
    }

    @Test
    void watchdogRidesOutARedisRestartShorterThanTheLease() {
        RedisServer server = redis.server();
        List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
        try (UnifiedJedis client = server.newClient(Duration.ofMillis(500));
                Turnstile turnstile = Turnstile.builder(client)
                        .defaultLease(Duration.ofSeconds(4))
                        .listener(lost::add)
                        .build()) {
            Lease lease = turnstile.lock("restart").acquire(Duration.ZERO, null);
            server.restart(); // graceful stop and start; the append-only file keeps the key
            long renewalsBefore = renewals(server);
            await().atMost(Duration.ofSeconds(6)).until(() -> renewals(server) > renewalsBefore + 1);
            assertThat(lease.isHeld()).isTrue();
            assertThat(lost).isEmpty();
            assertThat(client.pttl("turnstile:lock:{restart}")).isGreaterThan(2_000L);
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void watchdogRidesOutAFrozenRedisShorterThanTheLease() {
        RedisServer server = redis.server();
        List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
        try (UnifiedJedis client = server.newClient(Duration.ofMillis(300));
                Turnstile turnstile = Turnstile.builder(client)
                        .defaultLease(Duration.ofSeconds(3))
                        .listener(lost::add)
                        .build()) {
            Lease lease = turnstile.lock("pause").acquire(Duration.ZERO, null);
            server.pause();
            await().pollDelay(Duration.ofMillis(1500)).until(() -> true);
            server.resume();
            long renewalsBefore = renewals(server);
            await().atMost(Duration.ofSeconds(3)).until(() -> renewals(server) > renewalsBefore);
            assertThat(lease.isHeld()).isTrue();
            assertThat(lost).isEmpty();
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void leaseIsReportedLostWhenRedisStaysAwayPastItsDeadline() {
        RedisServer server = redis.server();
        List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
        try (UnifiedJedis client = server.newClient(Duration.ofMillis(300));
                Turnstile turnstile = Turnstile.builder(client)
                        .defaultLease(Duration.ofMillis(900))
                        .listener(lost::add)
                        .build()) {
            Lease lease = turnstile.lock("gone").acquire(Duration.ZERO, null);
            server.kill();
            await().atMost(Duration.ofSeconds(5)).until(() -> !lost.isEmpty());
            assertThat(lost)
                    .singleElement()
                    .extracting(LeaseLostEvent::reason)
                    .isEqualTo(LeaseLostEvent.Reason.RENEWAL_MISSED);
            assertThat(lease.isHeld()).isFalse();
        }
    }

    private static long renewals(RedisServer server) {
        return server.commandCounts().getOrDefault("pexpire", 0L);
    }

    private static String port() {
        return Integer.toString(redis.server().port());
    }
}
