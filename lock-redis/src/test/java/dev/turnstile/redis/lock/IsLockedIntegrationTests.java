package dev.turnstile.redis.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.NamedLock;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.RedisServer;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

/**
 * {@code isLocked()} means one thing on every deployment: true exactly while another owner's
 * {@code tryAcquire()} of the name is refused. Each test puts the name through held, forced
 * release, free, and asks both questions at every step.
 */
class IsLockedIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = this.closing.size() - 1; i >= 0; i--) {
            this.closing.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closing(T closeable) {
        this.closing.add(closeable);
        return closeable;
    }

    /** A Redlock whose masters may take 1 s to answer: they share this machine with the build. */
    private static Redlock redlock(List<UnifiedJedis> clients) {
        return Redlock.builder(clients).nodeTimeout(Duration.ofSeconds(1)).build();
    }

    /** Asks whether the name is locked, and whether another owner could take it, at one moment. */
    private static void assertLockedExactlyWhileRefused(NamedLock asked, NamedLock other, boolean locked) {
        assertThat(asked.isLocked()).as("isLocked()").isEqualTo(locked);
        Optional<Lease> taken = other.tryAcquire();
        taken.ifPresent(Lease::release);
        assertThat(taken.isPresent())
                .as("another owner's tryAcquire() succeeds exactly when isLocked() was false")
                .isEqualTo(!locked);
    }

    @Test
    void onOneServerAForcedReleasesHoldOffIsLockedBecauseNobodyElseMayTakeIt() {
        UnifiedJedis client = closing(redis.server().newClient(Duration.ofSeconds(2)));
        client.del("turnstile:lock:{report}");
        Turnstile holder = closing(Turnstile.builder(client).build());
        // The operator's cohort age is the hold-off: 3 s here, so the steps below fall inside it.
        Turnstile operator = closing(
                Turnstile.builder(client).lockCohort(32, Duration.ofSeconds(3)).build());
        Turnstile other = closing(Turnstile.builder(client).build());

        Lease lease = holder.lock("report").acquire(Duration.ZERO, Duration.ofSeconds(30));
        assertThat(operator.lock("report").isLocked()).isTrue();
        assertThat(other.lock("report").tryAcquire()).isEmpty();

        assertThat(operator.lock("report").forceRelease()).containsExactly("report");
        assertThat(client.get("turnstile:lock:{report}"))
                .as("the hold-off marker")
                .isEqualTo("force-released");
        assertThat(other.lock("report").tryAcquire())
                .as("nobody else may take the name during the hold-off")
                .isEmpty();
        assertThat(operator.lock("report").isLocked())
                .as("so it is locked (before, one server read the marker as free)")
                .isTrue();

        await().atMost(Duration.ofSeconds(10))
                .until(() -> !operator.lock("report").isLocked());
        assertLockedExactlyWhileRefused(operator.lock("report"), other.lock("report"), false);
        assertThat(lease.release()).isFalse();
    }

    @Test
    void onRedlockANameIsLockedWhileAMajorityHoldsItAndFreeOnceForceReleased() {
        List<UnifiedJedis> clients = new ArrayList<>();
        List<RedisServer> masters = new ArrayList<>();
        masters.add(redis.server());
        for (int i = 1; i < 5; i++) {
            masters.add(redis.startServer(builder -> builder));
        }
        for (RedisServer master : masters) {
            UnifiedJedis client = closing(master.newClient(Duration.ofSeconds(2)));
            client.del("turnstile:lock:{invoice}", "turnstile:lock:{minority}");
            clients.add(client);
        }
        Redlock holder = closing(redlock(clients));
        Redlock operator = closing(redlock(clients));
        Redlock other = closing(redlock(clients));

        Lease lease = holder.lock("invoice").acquire(Duration.ofSeconds(5), Duration.ofSeconds(30));
        assertThat(operator.lock("invoice").isLocked()).isTrue();
        assertThat(other.lock("invoice").tryAcquire()).isEmpty();

        assertThat(operator.lock("invoice").forceRelease()).containsExactly("invoice");
        assertLockedExactlyWhileRefused(operator.lock("invoice"), other.lock("invoice"), false);
        assertThat(lease.release()).isFalse();

        // A key on two of five masters (a grant that missed its majority) is not a lock: others get in.
        for (UnifiedJedis client : clients.subList(0, 2)) {
            client.set(
                    "turnstile:lock:{minority}",
                    "someone",
                    SetParams.setParams().px(30_000));
        }
        assertLockedExactlyWhileRefused(operator.lock("minority"), other.lock("minority"), false);
        // On three of five it is.
        clients.get(2)
                .set(
                        "turnstile:lock:{minority}",
                        "someone",
                        SetParams.setParams().px(30_000));
        assertLockedExactlyWhileRefused(operator.lock("minority"), other.lock("minority"), true);
    }
}
