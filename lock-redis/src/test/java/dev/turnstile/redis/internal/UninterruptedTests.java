package dev.turnstile.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.turnstile.redis.RedisUnavailableException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

class UninterruptedTests {

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void aCallRunsWithTheInterruptClearedAndTheFlagIsSetAgainAfterwards() {
        Thread.currentThread().interrupt();
        boolean seen = Uninterrupted.call(() -> Thread.currentThread().isInterrupted());
        assertThat(seen).as("interrupted during the call").isFalse();
        assertThat(Thread.currentThread().isInterrupted())
                .as("interrupted after it")
                .isTrue();
    }

    @Test
    void aCallWhoseWaitForAConnectionWasInterruptedIsMadeAgain() {
        AtomicInteger calls = new AtomicInteger();
        String answer = Uninterrupted.call(() -> {
            if (calls.incrementAndGet() == 1) {
                // What Jedis's pool throws, as ScriptRunner translates it (the flag is cleared).
                throw RedisErrors.translate(
                        new JedisException("Could not get a resource from the pool", new InterruptedException()),
                        "release lock 'x'");
            }
            return "released";
        });
        assertThat(answer).isEqualTo("released");
        assertThat(calls).hasValue(2);
        assertThat(Thread.currentThread().isInterrupted())
                .as("the interrupt is kept for the caller")
                .isTrue();
    }

    @Test
    void anyOtherFailurePassesThroughWithTheInterruptKept() {
        Thread.currentThread().interrupt();
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> Uninterrupted.run(() -> {
                    calls.incrementAndGet();
                    throw RedisErrors.translate(new JedisConnectionException("refused"), "release lock 'x'");
                }))
                .isInstanceOf(RedisUnavailableException.class);
        assertThat(calls).hasValue(1);
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }
}
