package dev.turnstile.sample.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.redis.inspect.LockInspector;
import dev.turnstile.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/** The inspector finds what the book's naive lock leaves behind when its holder dies. */
class NaiveLockInspectionTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void lockOfACrashedNaiveHolderIsReportedAsNeverExpiring() {
        try (Jedis holder = new Jedis(redis.server().hostAndPort());
                Jedis safe = new Jedis(redis.server().hostAndPort())) {
            BookLocks.acquireLock(holder, "market", 10); // and the holder dies
            String withTimeout = BookLocks.acquireLockWithTimeout(safe, "inventory", 10, 10, false);
            assertThat(withTimeout).isNotNull();
        }
        assertThat(new LockInspector(redis.server().client()).keysWithoutTtl("lock:*"))
                .extracting(LockInspector.KeyWithoutTtl::key)
                .containsExactly("lock:market");
    }
}
