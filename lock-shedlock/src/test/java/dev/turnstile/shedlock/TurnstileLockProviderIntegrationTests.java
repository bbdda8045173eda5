package dev.turnstile.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * ShedLock's own provider test cases (lock, unlock, no double lock, lock at least for, lock at most
 * for, extend, and its fuzz test), run against a real Redis server.
 */
class TurnstileLockProviderIntegrationTests extends AbstractExtensibleLockProviderIntegrationTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private UnifiedJedis client;
    private Turnstile turnstile;
    private TurnstileLockProvider provider;

    @BeforeEach
    void connect() {
        this.client = redis.server().newClient(Duration.ofSeconds(2));
        this.turnstile = Turnstile.builder(this.client).build();
        this.provider = new TurnstileLockProvider(this.turnstile);
    }

    @AfterEach
    void disconnect() {
        this.turnstile.close();
        this.client.close();
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return this.provider;
    }

    @Override
    protected void assertUnlocked(String lockName) {
        assertThat(this.turnstile.lock(lockName).isLocked())
                .as("'%s' is unlocked", lockName)
                .isFalse();
    }

    @Override
    protected void assertLocked(String lockName) {
        assertThat(this.turnstile.lock(lockName).isLocked())
                .as("'%s' is locked", lockName)
                .isTrue();
        assertThat(this.client.pttl("turnstile:lock:{" + lockName + "}"))
                .as("'%s' always has a time to live", lockName)
                .isPositive();
    }
}
