package dev.turnstile.redis.semaphore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.turnstile.redis.SemaphoreFullException;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.CommandRecorder;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/** Fail-fast, counted on the wire with MONITOR (one server). */
class SemaphoreFailFastIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private UnifiedJedis client;
    private Turnstile turnstile;

    @BeforeEach
    void setUp() {
        this.client = redis.server().newClient(Duration.ofSeconds(2));
        this.turnstile = Turnstile.builder(this.client).build();
    }

    @AfterEach
    void tearDown() {
        this.turnstile.close();
        this.client.close();
    }

    @Test
    void sixthCallerIsRefusedAtOnceWithOneRedisCall() {
        RedisSemaphore semaphore = this.turnstile.semaphore("account:7", 5);
        List<Permit> held = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            held.add(semaphore.tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow());
        }
        Optional<Permit> sixth;
        List<String> commands;
        try (CommandRecorder recorder = CommandRecorder.start(redis.server())) {
            sixth = semaphore.tryAcquire();
            commands = recorder.clientCommands();
        }
        assertThat(sixth).isEmpty();
        assertThat(commands).containsExactly("EVALSHA");
        assertThatThrownBy(() -> semaphore.acquire(Duration.ZERO, null))
                .isInstanceOf(SemaphoreFullException.class)
                .hasMessageContaining("'account:7'")
                .hasMessageContaining("all 5 permits");
        assertThat(semaphore.availablePermits()).isZero();
        assertThat(semaphore.holders())
                .extracting(PermitHolder::id)
                .containsExactlyInAnyOrderElementsOf(
                        held.stream().map(Permit::id).toList());
        held.forEach(Permit::release);
        assertThat(semaphore.availablePermits()).isEqualTo(5);
    }
}
