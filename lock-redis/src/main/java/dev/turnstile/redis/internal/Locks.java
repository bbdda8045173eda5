package dev.turnstile.redis.internal;

import dev.turnstile.redis.AwakeWaiting;
import java.util.Collection;
import java.util.List;

/**
 * Makes {@link RedisLock} handles that share one deployment and one local queue per name. Internal:
 * {@code Turnstile} owns one; use {@code Turnstile.lock(...)}.
 */
final class Locks {

    private final RedisDeployment deployment;
    private final LocalGates gates;

    /** Creates the factory over {@code deployment}. */
    public Locks(RedisDeployment deployment) {
        this.deployment = deployment;
        this.gates = new LocalGates(
                deployment.keys(), waitsAwake(deployment.options().awakeWaiting()));
    }

    /** Whether queued threads wait awake in {@code mode}, on this process's CPUs. */
    static boolean waitsAwake(AwakeWaiting mode) {
        return switch (mode) {
            case AUTO -> !CpuQuota.PRESENT;
            case ALWAYS -> true;
            case NEVER -> false;
        };
    }

    /**
     * Returns a lock on {@code names} (duplicates ignored).
     *
     * @throws IllegalArgumentException if there is no name, or one is null or blank
     */
    public RedisLock lock(Collection<String> names) {
        if (names == null || names.isEmpty()) {
            throw new IllegalArgumentException("'names' must hold at least one lock name but was " + names);
        }
        for (String name : names) {
            Arguments.requireName(name, "name");
        }
        return new RedisLock(this.deployment, this.gates, names.size() == 1 ? List.copyOf(names) : sorted(names));
    }

    /** The names, each once, sorted: the order in which several are taken. */
    private static List<String> sorted(Collection<String> names) {
        return List.copyOf(new java.util.TreeSet<>(names));
    }

    /** Returns whether a thread queued behind another of this process for a lock may wait awake. */
    public boolean waitsAwake() {
        return this.gates.waitsAwake();
    }

    /** Returns the number of names that threads of this process hold or queue for. */
    public int localQueues() {
        return this.gates.size();
    }
}
