package dev.turnstile.spring.aop;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.lock.Redlock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** Where {@code @DistributedLock} takes its locks: one Redis deployment, or Redlock over several masters. */
@FunctionalInterface
public interface LockBackend {

    /** Acquires all {@code names}, all-or-nothing, within {@code wait}. */
    Optional<? extends Lease> tryAcquire(List<String> names, Duration wait, @Nullable Duration leaseTime);

    /** Locks in the deployment {@code turnstile} talks to. */
    static LockBackend of(Turnstile turnstile) {
        return (names, wait, leaseTime) -> turnstile.lock(names).tryAcquire(wait, leaseTime);
    }

    /** Locks by the Redlock algorithm over {@code redlock}'s masters. */
    static LockBackend of(Redlock redlock) {
        return redlock::tryAcquire;
    }
}
