package dev.turnstile.spring.actuate;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.inspect.LockInspector;
import dev.turnstile.spring.aop.HeldGuards;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * {@code /actuator/turnstile}: what this node holds, and what Redis holds under the key prefix.
 * The write operation force-releases a named lock (guarded like every actuator write: expose and
 * secure it deliberately).
 */
@Endpoint(id = "turnstile")
public class TurnstileEndpoint {

    private final Turnstile turnstile;
    private final HeldGuards held;

    public TurnstileEndpoint(Turnstile turnstile, HeldGuards held) {
        this.turnstile = turnstile;
        this.held = held;
    }

    /** This node's held locks and permits, and Redis's view under the prefix. */
    @ReadOperation
    public Report report() {
        List<NodeHold> node = this.held.snapshot().stream()
                .map(hold -> new NodeHold(
                        hold.kind().label(),
                        hold.keys(),
                        hold.method(),
                        hold.since(),
                        hold.lease().remaining().toMillis(),
                        hold.lease().fencingTokens()))
                .toList();
        String prefix = this.turnstile.runtime().keys().prefix();
        LockInspector inspector = new LockInspector(this.turnstile.runtime().redis());
        List<RedisLock> locks = inspector.heldLocks(prefix).stream()
                .map(lock -> new RedisLock(lock.name(), lock.remaining().toMillis()))
                .toList();
        List<RedisSemaphore> semaphores = inspector.semaphores(prefix).stream()
                .map(semaphore ->
                        new RedisSemaphore(semaphore.name(), semaphore.holders().size()))
                .toList();
        return new Report(node, new RedisView(prefix, locks, semaphores));
    }

    /** Deletes lock {@code name} whoever holds it; returns the names that were held. */
    @WriteOperation
    public Map<String, List<String>> forceRelease(String name) {
        return Map.of("released", this.turnstile.lock(name).forceRelease());
    }

    /** The endpoint's answer. */
    public record Report(List<NodeHold> node, RedisView redis) {}

    /** A lock or permit a guarded method of this node holds. */
    public record NodeHold(
            String kind,
            List<String> keys,
            String method,
            Instant since,
            long leaseRemainingMillis,
            Map<String, Long> fencingTokens) {}

    /** Redis's view under the prefix. */
    public record RedisView(String prefix, List<RedisLock> locks, List<RedisSemaphore> semaphores) {}

    /** A held lock in Redis. */
    public record RedisLock(String name, long ttlMillis) {}

    /** A semaphore with live permits in Redis. */
    public record RedisSemaphore(String name, int permitsHeld) {}
}
