package dev.turnstile.redis.internal;

import dev.turnstile.redis.NamedLock;
import dev.turnstile.redis.TurnstileDiagnostics.Eviction;
import dev.turnstile.redis.TurnstileDiagnostics.HeldLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redlock algorithm over N independent masters: what {@code Redlock} runs. See {@code
 * Redlock} for the contract. Thread-safe.
 */
public final class RedlockEngine extends Deployment implements AutoCloseable {

    private final List<UnifiedJedis> masters;
    private final RedlockNodes nodes;
    private final Duration nodeTimeout;
    private final Duration retryDelay;
    private final EvictionCheck eviction;

    /**
     * The engine over {@code masters}. The only Redis calls it starts are the eviction check's, on a
     * watchdog I/O thread; the caller's thread makes none until the first acquire.
     *
     * @param names how messages name the masters, in their order; null for their positions
     */
    public RedlockEngine(
            List<? extends UnifiedJedis> masters,
            @Nullable List<String> names,
            TurnstileOptions options,
            Duration nodeTimeout,
            Duration retryDelay) {
        super(options);
        this.masters = List.copyOf(masters);
        this.nodes = new RedlockNodes(
                this.masters,
                names != null
                        ? names
                        : java.util.stream.IntStream.range(0, this.masters.size())
                                .mapToObj(i -> "#" + i)
                                .toList());
        this.nodeTimeout = nodeTimeout;
        this.retryDelay = retryDelay;
        this.eviction =
                EvictionCheck.ofMasters(this.masters.stream().map(Topology::of).toList(), names);
        Watchdog watchdog = leases().watchdog();
        this.eviction.start(watchdog::execute, watchdog::isRunning);
    }

    /** Reads whether the masters may evict keys now; never throws. */
    public List<Eviction> eviction() {
        return this.eviction.evictions();
    }

    /**
     * Returns one lock over all {@code names}, each taken on a majority of the masters: one by one
     * in sorted order within one wait, releasing the ones taken if a later one cannot be.
     *
     * @throws IllegalArgumentException if there is no name, or one is null or blank
     */
    public NamedLock lock(Collection<String> names) {
        if (names == null || names.isEmpty()) {
            throw new IllegalArgumentException("'names' must hold at least one lock name but was " + names);
        }
        names.forEach(name -> Arguments.requireName(name, "name"));
        leases().requireOpen();
        return new RedlockLock(this, List.copyOf(names));
    }

    /**
     * Returns the locks held on a majority of the masters now, as seen by scanning each master
     * (for operators; SCAN, not for hot paths): one entry per lock and owner, with the shortest
     * time to live among the masters that hold it. Masters that do not answer are left out.
     */
    public List<HeldLock> heldLocks() {
        Map<String, List<HeldLock>> byOwner = new java.util.LinkedHashMap<>();
        for (UnifiedJedis master : this.masters) {
            try {
                for (HeldLock lock : new KeyspaceScan(master).heldLocks(keys())) {
                    byOwner.computeIfAbsent(lock.name() + "\u0000" + lock.owner(), key -> new ArrayList<>())
                            .add(lock);
                }
            } catch (RuntimeException unreachable) {
                // a master that does not answer holds nothing we can show
            }
        }
        return byOwner.values().stream()
                .filter(copies -> copies.size() >= quorum())
                .map(copies -> copies.stream()
                        .min(java.util.Comparator.comparing(HeldLock::remaining))
                        .orElseThrow())
                .toList();
    }

    /** Returns the number of masters. */
    public int masterCount() {
        return this.masters.size();
    }

    /** Returns how many masters must grant a lock: a majority. */
    public int quorum() {
        return this.masters.size() / 2 + 1;
    }

    List<UnifiedJedis> masters() {
        return this.masters;
    }

    RedlockNodes nodes() {
        return this.nodes;
    }

    Duration nodeTimeout() {
        return this.nodeTimeout;
    }

    Duration retryDelay() {
        return this.retryDelay;
    }

    /** Stops the watchdog and the masters' pools, not the clients. */
    @Override
    public void close() {
        leases().close();
        this.nodes.close();
    }
}
