package dev.turnstile.redis.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * The example of docs/guarantees.md's "Fencing tokens in storage", run as it is printed there: a
 * holder that stalls past its lease writes after the next holder, and the storage rejects it.
 */
class FencedStorageExampleTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /**
     * Storage that refuses a write whose token is not above the last one it accepted for the row,
     * as {@code UPDATE item SET owner = ?, token = ? WHERE id = ? AND token < ?} does in SQL.
     */
    static final class FencedStore {

        private final Map<String, Long> tokens = new HashMap<>();
        private final Map<String, String> values = new HashMap<>();

        /** Writes {@code value} if {@code token} is above every token written to {@code id}; returns whether it did. */
        synchronized boolean write(String id, String value, long token) {
            Long last = this.tokens.get(id);
            if (last != null && token <= last) {
                return false; // a stale holder: someone with a later token already wrote
            }
            this.tokens.put(id, token);
            this.values.put(id, value);
            return true;
        }

        synchronized String read(String id) {
            return this.values.get(id);
        }
    }

    @Test
    void storageRejectsTheLateWriteOfAHolderWhoseLeaseRanOut() {
        try (UnifiedJedis jedis = redis.server().newClient(Duration.ofSeconds(2));
                Turnstile turnstile = Turnstile.builder(jedis).build()) {
            FencedStore storage = new FencedStore();

            // A takes the lock with a 200 ms lease, then stalls (a GC pause, a frozen VM) past it.
            Lease a = turnstile.lock("item:42").acquire(Duration.ZERO, Duration.ofMillis(200));
            await().atMost(Duration.ofSeconds(5)).until(() -> !a.isHeld());

            // B gets the lock and writes with its token, which is larger than A's.
            try (Lease b = turnstile.lock("item:42").acquire(Duration.ofSeconds(5), Duration.ofSeconds(10))) {
                assertThat(storage.write("item:42", "sold to B", b.fencingToken()))
                        .isTrue();
            }

            // A wakes up and writes: its token is below B's, and the storage rejects it.
            assertThat(storage.write("item:42", "sold to A", a.fencingToken())).isFalse();
            assertThat(storage.read("item:42")).isEqualTo("sold to B");
        }
    }
}
