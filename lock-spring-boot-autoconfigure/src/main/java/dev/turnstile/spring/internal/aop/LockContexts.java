package dev.turnstile.spring.internal.aop;

import dev.turnstile.redis.LeaseKind;
import dev.turnstile.spring.LockContext;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The {@link LockContext}s bound to each thread by the guarded calls running on it, innermost first. */
public final class LockContexts {

    private static final ThreadLocal<Deque<LockContext>> STACK = ThreadLocal.withInitial(ArrayDeque::new);

    private LockContexts() {}

    /** Returns the innermost context of this thread, or null when no guarded call runs on it. */
    public static @Nullable LockContext innermost() {
        return STACK.get().peek();
    }

    /** Makes {@code context} this thread's innermost until {@link #pop}. */
    static void push(LockContext context) {
        STACK.get().push(context);
    }

    /** Ends this thread's innermost context. */
    static void pop() {
        Deque<LockContext> stack = STACK.get();
        stack.pop();
        if (stack.isEmpty()) {
            STACK.remove();
        }
    }

    /** Returns the context on this thread that holds all {@code keys} of {@code kind} (held or not), or null. */
    static @Nullable LockContext holding(LeaseKind kind, List<String> keys) {
        return covering(STACK.get(), kind, keys, false);
    }

    /** Returns the contexts of {@code kind} on this thread whose leases are held, innermost first. */
    static List<LockContext> heldOnThisThread(LeaseKind kind) {
        return held(STACK.get(), kind);
    }

    /** Returns the first of {@code contexts} of {@code kind} that has all {@code keys} (and is held, if asked), or null. */
    static @Nullable LockContext covering(
            Iterable<LockContext> contexts, LeaseKind kind, List<String> keys, boolean heldOnly) {
        for (LockContext context : contexts) {
            if (context.kind() == kind && context.keys().containsAll(keys) && (!heldOnly || context.isHeld())) {
                return context;
            }
        }
        return null;
    }

    /** Returns those of {@code contexts} of {@code kind} whose leases are held, in their order. */
    static List<LockContext> held(Iterable<LockContext> contexts, LeaseKind kind) {
        List<LockContext> held = new ArrayList<>();
        for (LockContext context : contexts) {
            if (context.kind() == kind && context.isHeld()) {
                held.add(context);
            }
        }
        return held;
    }
}
