package dev.turnstile.spring;

import dev.turnstile.redis.Lease;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

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

    private static final ThreadLocal<Deque<LockContext>> STACK = ThreadLocal.withInitial(ArrayDeque::new);

    private final String kind;
    private final List<String> keys;
    private final Lease lease;

    /** Internal: created by the aspect. */
    public LockContext(String kind, Lease lease) {
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
        LockContext context = STACK.get().peek();
        if (context == null) {
            throw new IllegalStateException("No @DistributedLock or @Semaphore method is running on this thread;"
                    + " LockContext.current() is only available inside one, or inside a guarded Kotlin suspend"
                    + " function's coroutine (and not in the async continuations of a future or a Mono)");
        }
        return context;
    }

    /** Returns the innermost context, if a guarded method runs on this thread. */
    public static Optional<LockContext> find() {
        return Optional.ofNullable(STACK.get().peek());
    }

    /** Returns {@code "lock"} or {@code "semaphore"}. */
    public String kind() {
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

    /** Internal: the context on this thread that holds all {@code keys} of {@code kind}, if any. */
    public static @Nullable LockContext holding(String kind, List<String> keys) {
        for (LockContext context : STACK.get()) {
            if (context.kind.equals(kind) && context.keys.containsAll(keys)) {
                return context;
            }
        }
        return null;
    }

    /** Internal: the contexts of {@code kind} on this thread whose leases are held, innermost first. */
    public static List<LockContext> heldOnThisThread(String kind) {
        List<LockContext> held = new ArrayList<>();
        for (LockContext context : STACK.get()) {
            if (context.kind.equals(kind) && context.isHeld()) {
                held.add(context);
            }
        }
        return held;
    }

    /** Internal: makes {@code context} current until {@link #pop}. */
    public static void push(LockContext context) {
        STACK.get().push(context);
    }

    /** Internal: ends the innermost context. */
    public static void pop() {
        Deque<LockContext> stack = STACK.get();
        stack.pop();
        if (stack.isEmpty()) {
            STACK.remove();
        }
    }

    @Override
    public String toString() {
        return this.kind + " '" + key() + "' (" + (isHeld() ? "held" : "not held") + ")";
    }
}
