package dev.turnstile.redis.internal;

import java.util.List;

/**
 * What the diagnostics of a {@code Turnstile} read from its engine. The types of the listings are
 * left open: they are the public records of {@code TurnstileDiagnostics}, which so depends on this
 * interface and not on the engine (that depends on the records).
 *
 * @param <L> a lock held in Redis
 * @param <S> a semaphore with live permits in Redis
 * @param <E> whether one server may evict keys
 */
public interface DiagnosticsSource<L, S, E> {

    /** Returns whether the watchdog still renews and watches leases. */
    boolean watchdogRunning();

    /** Pings Redis (translating failures into Turnstile's exceptions). */
    String ping();

    /** Returns {@code {cached, used}}: how many of the scripts run so far the server has cached. */
    int[] scriptsLoaded();

    /** Returns the prefix of every key. */
    String keyPrefix();

    /** Returns the locks held under the prefix now (SCAN). */
    List<L> heldLocks();

    /** Returns the semaphores with live permits under the prefix now (SCAN). */
    List<S> semaphores();

    /** Reads whether the servers may evict keys now; never throws. */
    List<E> eviction();

    /** Returns whether release signals use sharded pub/sub. */
    boolean shardedSignals();

    /** Returns how many lock names threads of this process hold or queue for now. */
    int localLockQueues();

    /** Returns whether a thread queued for a lock behind another of this process may wait awake. */
    boolean queuedThreadsWaitAwake();

    /** Returns about how many lease renewals and deadline checks are scheduled now. */
    int scheduledTimers();
}
