package dev.turnstile.shedlock;

import dev.turnstile.redis.LockFactory;
import java.time.Duration;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * ShedLock's {@code LockProvider} on Turnstile, so {@code @SchedulerLock} jobs move to Turnstile by
 * replacing one bean:
 *
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider(Turnstile turnstile) {
 *     return new TurnstileLockProvider(turnstile);
 * }
 * }</pre>
 *
 * <ul>
 *   <li>{@code lockAtMostFor} is the lease: a fixed time to live in Redis, set when the lock is
 *       taken, so a crashed node's lock expires after it (no watchdog, as ShedLock expects);
 *   <li>{@code lockAtLeastFor} is honoured on unlock by the Redis server's clock, counted from the
 *       grant (or from the extension that asked for it): the lock is left to expire then, and no
 *       node's clock is involved;
 *   <li>{@link SimpleLock#extend} sets a new lease, owner-checked; an expired lock cannot be
 *       extended.
 * </ul>
 *
 * A lock is tried once, without waiting, as ShedLock requires. The ShedLock lock name is the
 * Turnstile lock name ({@code @SchedulerLock(name = "report")} and {@code @DistributedLock(key =
 * "report")} are the same lock), and every grant has a fencing token.
 */
public final class TurnstileLockProvider implements ExtensibleLockProvider {

    private final LockFactory locks;

    /**
     * A provider of locks from {@code locks}: a {@code Turnstile} (one Redis deployment) or a
     * {@code Redlock} (a majority of independent masters).
     */
    public TurnstileLockProvider(LockFactory locks) {
        this.locks = locks;
    }

    /**
     * Takes the lock named by the configuration for its {@code lockAtMostFor}, if it is free now.
     *
     * @throws IllegalArgumentException if {@code lockAtMostFor} is not positive
     * @throws dev.turnstile.redis.RedisUnavailableException if Redis cannot be reached
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        Duration atMost = configuration.getLockAtMostFor();
        if (atMost.isNegative() || atMost.isZero()) {
            throw new IllegalArgumentException("lockAtMostFor of ShedLock lock '" + configuration.getName()
                    + "' must be positive but was " + atMost + "; it is the lock's lease in Redis");
        }
        long started = System.nanoTime();
        return this.locks
                .lock(configuration.getName())
                .tryAcquire(Duration.ZERO, atMost)
                .map(lease -> new TurnstileSimpleLock(lease, started, configuration.getLockAtLeastFor()));
    }

    @Override
    public String toString() {
        return "TurnstileLockProvider";
    }
}
