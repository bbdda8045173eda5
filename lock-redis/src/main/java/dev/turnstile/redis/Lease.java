package dev.turnstile.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A time-limited grant of a lock or a semaphore permit, returned by a successful acquire.
 *
 * <p>A lease ends in one of three ways: {@link #release()} (or {@link #close()}), loss (its time
 * ran out in Redis or locally, or the watchdog could not renew it before its deadline), or both.
 * Loss is never silent: {@link #isHeld()} turns false and every {@link LeaseListener} hears it
 * once.
 *
 * <pre>{@code
 * try (Lease lease = turnstile.lock("item:42").acquire(Duration.ofSeconds(5), null)) {
 *     storage.write(item, lease.fencingToken());   // storage rejects tokens older than the last seen
 * }
 * }</pre>
 *
 * <p>Leases are not bound to a thread: any thread may extend or release one, so they work with
 * virtual threads, executors and reactive code. All methods are thread-safe.
 */
public interface Lease extends AutoCloseable {

    /** Returns the lock or semaphore name; for a multi-key lock, the names joined by {@code ","}. */
    String name();

    /** Returns the names this lease covers, in acquisition (sorted) order. */
    List<String> names();

    /**
     * Returns the fencing token: a number that strictly increases with every grant of this name,
     * across releases, expiries and restarts of the holder, as long as the clock of the Redis server
     * that grants next is past the highest token handed out before (Redlock's condition differs;
     * docs/guarantees.md says what each means per fault). Pass it to storage that rejects a token
     * lower than the highest it has seen, so a stale holder cannot overwrite a newer one's work. A
     * semaphore's permits are held by several at once: each holder's token is its own and larger
     * than every token granted before it asked, but tokens need not follow the order holds began.
     *
     * @throws IllegalStateException for a multi-key lease; use {@link #fencingTokens()}
     */
    long fencingToken();

    /** Returns the fencing token of every name this lease covers. */
    Map<String, Long> fencingTokens();

    /**
     * Returns whether this lease is still held, without calling Redis: false once it was released,
     * once it passed its own deadline (acquire time plus lease time, or the last successful renewal
     * plus lease time), or once the watchdog or an extension found it lost. The deadline is taken
     * from a local monotonic clock started before the request was sent, so it errs on the side of
     * "not held".
     */
    boolean isHeld();

    /** Returns how long this lease has left by the local deadline; zero once it is not held. */
    Duration remaining();

    /**
     * Sets the lease's time to live to {@code leaseTime} from now, if this owner still holds it. For
     * a watchdog-renewed lease, later renewals use {@code leaseTime} too.
     *
     * @throws IllegalArgumentException if {@code leaseTime} is not positive
     * @throws LockLostException if the lease is no longer held (it is then reported as lost)
     * @throws RedisUnavailableException if Redis could not be reached; the lease is unchanged
     */
    void extend(Duration leaseTime);

    /**
     * Releases the lease if this owner still holds it; never touches another owner's grant, and
     * stops renewal first, so nothing renews it afterwards. Idempotent: a second call does nothing.
     * If Redis cannot be reached the lease stays releasable (call again), and it expires in Redis
     * by its own time to live in any case.
     *
     * <p>A release that comes after the lease's deadline (its renewals were cut off by a network
     * partition, or the process stalled) first reports the loss, exactly once, to the listeners,
     * and then returns false: the work it guarded did not run under the lease to its end. So does
     * a release that finds the grant no longer this owner's in Redis, after the fact: the listeners
     * hear {@link LeaseLostEvent.Reason#FORCE_RELEASED} if an operator released it, else {@link
     * LeaseLostEvent.Reason#EXPIRED_IN_REDIS} (expired there before the local deadline), and false
     * is returned. The release of a lease
     * already lost never waits for Redis: what may be left of its grant is freed, owner-checked, on
     * a Turnstile thread.
     *
     * @return true if the lease was held up to this release and this call freed its grant in
     *     Redis; false if it had been lost (and reported, at the latest by this call) or was
     *     already released
     * @throws RedisUnavailableException if Redis could not be reached
     */
    boolean release();

    /**
     * Ends the lease like {@link #release()}, but leaves its grant in Redis until {@code
     * holdAtLeast} has passed since it was granted, counted by the Redis server's clock; the grant
     * then expires by itself. Nothing renews it after this call, and no client clock is involved, so
     * a job that finishes early still keeps every other node out for its whole period. If that time
     * has already passed, the grant is freed at once. A lease that was lost is not held on: its
     * grant, if still this owner's, is freed, and false is returned.
     *
     * @param holdAtLeast how long after the grant the name stays taken; zero is {@link #release()}
     * @return as {@link #release()}
     * @throws IllegalArgumentException if {@code holdAtLeast} is negative
     * @throws RedisUnavailableException if Redis could not be reached, or, under {@code
     *     minReplicas}, if the hold reached fewer replicas than required (the master keeps it, but a
     *     failover could free the name before the hold ends)
     */
    boolean releaseAfter(Duration holdAtLeast);

    /**
     * Registers a listener that hears this lease's loss; called at once if it is already lost.
     * Listeners run on a Turnstile thread (the deadline thread for a passed deadline) or the
     * caller's thread, and must not block.
     */
    void onLost(LeaseListener listener);

    /** Same as {@link #release()}, for try-with-resources. */
    @Override
    void close();
}
