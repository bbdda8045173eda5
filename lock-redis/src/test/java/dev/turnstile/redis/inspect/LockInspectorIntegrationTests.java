package dev.turnstile.redis.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.semaphore.Permit;
import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

class LockInspectorIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void findsLockKeysWithoutTtlAndTurnstilesLocksAndSemaphores() {
        UnifiedJedis client = redis.server().client();
        client.setnx("lock:market", "holder-that-crashed"); // the book's naive lock: no TTL, ever
        client.set("orders:lock:7", "x");
        client.set("unrelated", "no ttl but not a lock");
        try (Turnstile turnstile = Turnstile.builder(client).build()) {
            Lease lease = turnstile.lock("item:42").acquire(Duration.ZERO, null);
            Permit permit = turnstile.semaphore("account:7", 5).acquire(Duration.ZERO, null);
            LockInspector inspector = new LockInspector(client);

            assertThat(inspector.keysWithoutTtl("*lock*"))
                    .extracting(LockInspector.KeyWithoutTtl::key)
                    .containsExactlyInAnyOrder("lock:market", "orders:lock:7");
            assertThat(inspector.heldLocks("turnstile")).singleElement().satisfies(lock -> {
                assertThat(lock.name()).isEqualTo("item:42");
                assertThat(lock.remaining()).isPositive();
            });
            assertThat(inspector.semaphores("turnstile")).singleElement().satisfies(semaphore -> {
                assertThat(semaphore.name()).isEqualTo("account:7");
                assertThat(semaphore.holders()).containsExactly(permit.id());
            });

            assertThat(turnstile.lock("item:42").forceRelease()).containsExactly("item:42");
            assertThat(inspector.heldLocks("turnstile")).isEmpty();
            assertThat(lease.release()).as("the old holder finds its lock gone").isFalse();
        }
    }

    @Test
    void commandLineReportsKeysWithoutTtlAndExitsWithOne() {
        redis.server().client().setnx("lock:market", "holder-that-crashed");
        ChildJvm cli = redis.startChild(
                LockInspectorCommand.class, redis.server().uri().toString());
        assertThat(cli.awaitExit(Duration.ofSeconds(30))).isEqualTo(1);
        assertThat(cli.lines())
                .contains("Keys matching '*lock*' without a TTL (they never expire): 1", "  lock:market (string)");
    }
}
