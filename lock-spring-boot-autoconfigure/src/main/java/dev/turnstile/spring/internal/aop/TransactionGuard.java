package dev.turnstile.spring.internal.aop;

import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LeaseLostEvent;
import dev.turnstile.redis.LockLostException;
import dev.turnstile.spring.LockContext;
import dev.turnstile.spring.aop.OnLeaseLost;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Ties leases to Spring transactions (only used when spring-tx is on the classpath): a release
 * waits for the surrounding transaction to complete, a later call on the same keys in that
 * transaction joins the waiting lease instead of waiting for it, and in {@link OnLeaseLost#ROLLBACK} mode a
 * transaction whose lease was lost is refused at commit. A method with {@code confirmBeforeCommit}
 * has its lease confirmed in Redis before each commit under it. Told by every transaction manager when a
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

    /** This thread's leases whose methods ask that they be confirmed before each commit, innermost first. */
    private static final ThreadLocal<Deque<Confirmation>> CONFIRMING = ThreadLocal.withInitial(ArrayDeque::new);

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
    LockContext deferredHolding(LeaseKind kind, List<String> keys) {
        return LockContexts.covering(DEFERRED.get(), kind, keys, true);
    }

    /** Returns this thread's still-held leases of {@code kind} whose release waits for a transaction. */
    List<LockContext> deferredHeld(LeaseKind kind) {
        return LockContexts.held(DEFERRED.get(), kind);
    }

    /** In ROLLBACK mode, refuses the commit of the active transaction if {@code context} lost its lease. */
    void guardCommit(LockContext context) {
        if (this.onLeaseLost != OnLeaseLost.ROLLBACK || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        AtomicReference<LeaseLostEvent.@Nullable Reason> reason = new AtomicReference<>();
        context.lease().onLost(event -> reason.set(event.reason()));
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void beforeCommit(boolean readOnly) {
                if (!context.isHeld()) {
                    LeaseLostEvent.Reason why = reason.get();
                    throw LockLostException.rolledBack(
                            context.kind(),
                            context.key(),
                            why,
                            why == null
                                    ? "its lease was lost before the commit"
                                    : "it was " + why.description() + " before the commit");
                }
            }
        });
    }

    /**
     * Confirms {@code context}'s lease in Redis before the commit of the active transaction, if one
     * is active: {@code confirm} runs in {@code beforeCommit} and throws to refuse the commit.
     */
    void confirmCommit(LockContext context, Runnable confirm) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void beforeCommit(boolean readOnly) {
                confirm.run();
            }
        });
    }

    /**
     * Runs {@code call} with {@code confirm} registered for {@code context}: every transaction that
     * begins on this thread while {@code context} is the current one confirms it before its commit.
     */
    @Nullable
    Object confirmingCommits(LockContext context, Runnable confirm, Invoker call) throws Throwable {
        Deque<Confirmation> confirming = CONFIRMING.get();
        confirming.push(new Confirmation(context, confirm));
        try {
            return call.invoke();
        } finally {
            confirming.pop();
        }
    }

    /** A lease to confirm before the commits of the transactions begun under it. */
    private record Confirmation(LockContext context, Runnable confirm) {}

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

    /**
     * A transaction began on this thread: inside a guarded method, guard its commit (ROLLBACK mode),
     * and confirm the lease before it if the method asks for it.
     */
    public void transactionBegan() {
        LockContext.find().ifPresent(context -> {
            guardCommit(context);
            Confirmation confirmation = CONFIRMING.get().peek();
            if (confirmation != null && confirmation.context() == context) {
                confirmCommit(context, confirmation.confirm());
            }
        });
    }
}
