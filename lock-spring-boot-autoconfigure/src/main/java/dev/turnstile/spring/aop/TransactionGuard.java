package dev.turnstile.spring.aop;

import dev.turnstile.redis.LockLostException;
import dev.turnstile.spring.LockContext;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Ties leases to Spring transactions (only used when spring-tx is on the classpath): a release
 * waits for the surrounding transaction to complete, a later call on the same keys in that
 * transaction joins the waiting lease instead of waiting for it, and in {@link OnLeaseLost#ROLLBACK} mode a
 * transaction whose lease was lost is refused at commit. Told by every transaction manager when a
 * transaction begins ({@link #transactionBegan}), it guards transactions that begin inside a
 * guarded method.
 *
 * <p>No spring-tx type appears in this class's declaration or signatures, only in its method
 * bodies: the aspect holds a reference to it, and an application without spring-tx must still be
 * able to load the aspect.
 */
public final class TransactionGuard {

    /**
     * This thread's leases whose release waits for a transaction, including transactions now
     * suspended by an inner REQUIRES_NEW or NOT_SUPPORTED: they stay held until that transaction
     * completes, so an inner call on the same keys joins them instead of waiting for itself.
     */
    private static final ThreadLocal<Deque<LockContext>> DEFERRED = ThreadLocal.withInitial(ConcurrentLinkedDeque::new);

    private final OnLeaseLost onLeaseLost;

    /** Creates the guard; {@code onLeaseLost} decides whether commits are guarded. */
    public TransactionGuard(OnLeaseLost onLeaseLost) {
        this.onLeaseLost = onLeaseLost;
    }

    /**
     * Defers {@code release} of {@code context}'s lease to the completion of the transaction active
     * on this thread; until then, {@link #deferredHolding} finds it so that a later call on the same
     * keys on this thread joins it.
     *
     * @return false if no transaction synchronization is active (release now)
     */
    boolean deferRelease(LockContext context, Runnable release) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            return false;
        }
        Deque<LockContext> deferred = DEFERRED.get();
        deferred.push(context);
        TransactionSynchronizationManager.registerSynchronization(new DeferredRelease(deferred, context, release));
        return true;
    }

    /**
     * Returns the still-held lease of {@code kind} covering all {@code keys} whose release waits for
     * a transaction of this thread (the active one, or a suspended outer one), or null. Never
     * another thread's.
     */
    @Nullable
    LockContext deferredHolding(String kind, List<String> keys) {
        for (LockContext context : DEFERRED.get()) {
            if (context.kind().equals(kind) && context.keys().containsAll(keys) && context.isHeld()) {
                return context;
            }
        }
        return null;
    }

    /** Returns this thread's still-held leases of {@code kind} whose release waits for a transaction. */
    List<LockContext> deferredHeld(String kind) {
        List<LockContext> held = new ArrayList<>();
        for (LockContext context : DEFERRED.get()) {
            if (context.kind().equals(kind) && context.isHeld()) {
                held.add(context);
            }
        }
        return held;
    }

    /** In ROLLBACK mode, refuses the commit of the active transaction if {@code context} lost its lease. */
    void guardCommit(LockContext context) {
        if (this.onLeaseLost != OnLeaseLost.ROLLBACK || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void beforeCommit(boolean readOnly) {
                if (!context.isHeld()) {
                    throw LockLostException.of(context.kind(), context.key(), "its lease was lost before the commit");
                }
            }
        });
    }

    /** A lease released when its transaction completes, whether it commits or rolls back. */
    private static final class DeferredRelease implements TransactionSynchronization {

        private final Deque<LockContext> owner;
        private final LockContext context;
        private final Runnable release;

        DeferredRelease(Deque<LockContext> owner, LockContext context, Runnable release) {
            this.owner = owner;
            this.context = context;
            this.release = release;
        }

        @Override
        public void afterCompletion(int status) {
            // The owning thread's deque, not DEFERRED.get(): completion may run on another thread.
            this.owner.remove(this.context);
            this.release.run();
        }
    }

    /** A transaction began on this thread: inside a guarded method, guard its commit. */
    public void transactionBegan() {
        LockContext.find().ifPresent(this::guardCommit);
    }
}
