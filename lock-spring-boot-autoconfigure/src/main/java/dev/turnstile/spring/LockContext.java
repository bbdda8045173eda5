package dev.turnstile.spring;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.spring.internal.aop.LockContexts;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The lease of the {@code @DistributedLock} or {@code @Semaphore} method running on the current
 * thread, for code that needs its fencing token or wants to check it still holds the lock:
 *
 * <pre>{@code
 * @DistributedLock(key = "item:#itemId")
 * public void buy(String itemId) {
 *     long token = LockContext.current().fencingToken();
 *     inventory.saveIfNewer(itemId, token);
 * }
 * }</pre>
 *
 * <p>Bound to the thread that entered the method (for a {@code CompletableFuture} or reactive
 * method, only while the method itself runs, not in its asynchronous continuation). In a Kotlin
 * {@code suspend fun}, it is bound to the coroutine instead, as a coroutine context element: {@code
 * current()} works in the coroutine and its children on whatever thread they run, across
 * suspensions, and not after the coroutine has finished. A nested annotated call that joined an
 * outer lease sees the outer context.
 */
public final class LockContext {

    private final LeaseKind kind;
    private final List<String> keys;
    private final Lease lease;

    /**
     * A context for {@code lease}, a lease of {@code kind}. The aspect makes one for each guarded
     * call and binds it to the thread that runs the method; one made here is bound to nothing, which
     * serves to test code that is handed a context.
     */
    public LockContext(LeaseKind kind, Lease lease) {
        this.kind = kind;
        this.keys = lease.names();
        this.lease = lease;
    }

    /**
     * Returns the context of the innermost guarded method running on this thread.
     *
     * @throws IllegalStateException if no guarded method is running on this thread
     */
    public static LockContext current() {
        LockContext context = LockContexts.innermost();
        if (context == null) {
            throw new IllegalStateException("No @DistributedLock or @Semaphore method is running on this thread;"
                    + " LockContext.current() is only available inside one, or inside a guarded Kotlin suspend"
                    + " function's coroutine (and not in the async continuations of a future or a Mono)");
        }
        return context;
    }

    /** Returns the innermost context, if a guarded method runs on this thread. */
    public static Optional<LockContext> find() {
        return Optional.ofNullable(LockContexts.innermost());
    }

    /** Returns whether this is a lock's lease or a semaphore permit's. */
    public LeaseKind kind() {
        return this.kind;
    }

    /** Returns the resolved key; for a multi-key lock, the keys joined by {@code ","}. */
    public String key() {
        return String.join(",", this.keys);
    }

    /** Returns the resolved keys, in acquisition (sorted) order. */
    public List<String> keys() {
        return this.keys;
    }

    /**
     * Returns the fencing token.
     *
     * @throws IllegalStateException for a multi-key lock; use {@link #fencingTokens()}
     */
    public long fencingToken() {
        return this.lease.fencingToken();
    }

    /** Returns the fencing token of each key. */
    public Map<String, Long> fencingTokens() {
        return this.lease.fencingTokens();
    }

    /** Returns whether the lease is still held (a local check, no Redis call). */
    public boolean isHeld() {
        return this.lease.isHeld();
    }

    /** Returns the underlying lease. */
    public Lease lease() {
        return this.lease;
    }

    @Override
    public String toString() {
        return this.kind.label() + " '" + key() + "' (" + (isHeld() ? "held" : "not held") + ")";
    }
}
