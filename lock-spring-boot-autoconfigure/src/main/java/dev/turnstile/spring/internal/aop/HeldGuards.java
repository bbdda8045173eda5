package dev.turnstile.spring.internal.aop;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseKind;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The locks and permits that guarded methods of this node hold right now. Thread-safe. */
public final class HeldGuards {

    /**
     * One held lock or permit.
     *
     * @param kind lock or semaphore
     * @param keys the resolved keys
     * @param method the guarded method
     * @param since when it was acquired
     * @param lease the lease (its remaining time and fencing tokens)
     */
    public record HeldGuard(LeaseKind kind, List<String> keys, String method, Instant since, Lease lease) {}

    private record Entry(HeldGuard guard, long sinceNanos) {}

    private final Map<Lease, Entry> held = new ConcurrentHashMap<>();

    void add(LeaseKind kind, String method, Lease lease) {
        this.held.put(
                lease, new Entry(new HeldGuard(kind, lease.names(), method, Instant.now(), lease), System.nanoTime()));
    }

    /** Forgets {@code lease}; returns how long it was held (zero if it was not tracked). */
    Duration remove(Lease lease) {
        Entry entry = this.held.remove(lease);
        return entry == null ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - entry.sinceNanos());
    }

    /** Returns what this node holds now. */
    public List<HeldGuard> snapshot() {
        return this.held.values().stream().map(Entry::guard).toList();
    }
}
