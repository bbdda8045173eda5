package dev.turnstile.spring.actuate;

import dev.turnstile.redis.LockFactory;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.TurnstileDiagnostics;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.spring.internal.actuate.TurnstileEndpointWebExtension;
import dev.turnstile.spring.internal.aop.HeldGuards;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/turnstile}: what this node holds, what Redis holds under the key prefix, and
 * whether each server (and Redlock master) may evict keys.
 * With {@code turnstile.redlock.nodes}, locks are read from and released on the Redlock masters,
 * where {@code @DistributedLock} takes them; semaphores always live in {@code spring.data.redis}.
 *
 * <p>Its only operation is the read. Over HTTP, {@link TurnstileEndpointWebExtension} answers it
 * (503 when Redis cannot be reached) and, with {@code turnstile.endpoint.force-release=true}, adds
 * the write operation that calls {@link #forceRelease}.
 */
@Endpoint(id = "turnstile")
public class TurnstileEndpoint {

    private final Turnstile turnstile;
    private final HeldGuards held;
    private final @Nullable Redlock redlock;

    /** Reports {@code turnstile}'s Redis and, when given, takes locks from {@code redlock}'s masters. */
    public TurnstileEndpoint(Turnstile turnstile, HeldGuards held, @Nullable Redlock redlock) {
        this.turnstile = turnstile;
        this.held = held;
        this.redlock = redlock;
    }

    /**
     * This node's held locks and permits, and Redis's view under the prefix.
     *
     * @throws dev.turnstile.redis.TurnstileException or a Jedis exception if Redis could not be reached
     */
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
        TurnstileDiagnostics diagnostics = this.turnstile.diagnostics();
        String prefix = diagnostics.keyPrefix();
        List<RedisLock> locks = (this.redlock != null ? this.redlock.heldLocks() : diagnostics.heldLocks())
                .stream()
                        .map(lock -> new RedisLock(lock.name(), lock.remaining().toMillis()))
                        .toList();
        List<RedisSemaphore> semaphores = diagnostics.semaphores().stream()
                .map(semaphore ->
                        new RedisSemaphore(semaphore.name(), semaphore.holders().size()))
                .toList();
        String locksOn =
                this.redlock != null ? "redlock over " + this.redlock.masterCount() + " masters" : "spring.data.redis";
        List<TurnstileDiagnostics.Eviction> servers = new ArrayList<>(diagnostics.eviction());
        if (this.redlock != null) {
            servers.addAll(this.redlock.eviction());
        }
        List<ServerEviction> eviction = servers.stream()
                .map(server -> new ServerEviction(
                        server.server(), server.risk().name(), server.policy(), server.maxmemory(), server.summary()))
                .toList();
        return new Report(node, new RedisView(prefix, locksOn, locks, semaphores, eviction));
    }

    /**
     * Frees lock {@code name} whoever holds it (on every Redlock master); returns the names that
     * were held. Not an operation of this endpoint: {@link TurnstileEndpointWebExtension.WithForceRelease}
     * offers it over HTTP when {@code turnstile.endpoint.force-release=true}.
     *
     * @throws dev.turnstile.redis.TurnstileException if Redis could not be reached
     */
    public Map<String, List<String>> forceRelease(String name) {
        LockFactory locks = this.redlock != null ? this.redlock : this.turnstile;
        return Map.of("released", locks.lock(name).forceRelease());
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

    /**
     * Redis's view under the prefix; {@code locksOn} says where the locks were read, {@code eviction}
     * whether each server may evict keys.
     */
    public record RedisView(
            String prefix,
            String locksOn,
            List<RedisLock> locks,
            List<RedisSemaphore> semaphores,
            List<ServerEviction> eviction) {}

    /**
     * Whether a server may evict keys, from its {@code INFO memory}.
     *
     * @param server {@code host:port}, or {@code "Redlock master host:port"}
     * @param risk {@code NONE}, {@code MAY_EVICT} or {@code UNKNOWN} (could not be read)
     * @param policy its {@code maxmemory-policy}, or null when not read
     * @param maxmemory its {@code maxmemory} in bytes, 0 for none
     * @param summary the same in a few words, as the health details show it
     */
    public record ServerEviction(
            String server, String risk, @Nullable String policy, long maxmemory, String summary) {}

    /** A held lock in Redis. */
    public record RedisLock(String name, long ttlMillis) {}

    /** A semaphore with live permits in Redis. */
    public record RedisSemaphore(String name, int permitsHeld) {}
}
