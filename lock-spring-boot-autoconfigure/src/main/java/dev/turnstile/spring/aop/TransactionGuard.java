package dev.turnstile.spring.aop;

import dev.turnstile.redis.LockLostException;
import dev.turnstile.spring.LockContext;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Ties leases to Spring transactions (only used when spring-tx is on the classpath): a release
 * waits for the surrounding transaction to complete, a later call on the same keys in that
 * transaction joins the waiting lease instead of waiting for it, and in {@link OnLeaseLost#ROLLBACK} mode a
 * transaction whose lease was lost is refused at commit. Added as a listener to every
 * transaction manager, it guards transactions that begin inside a guarded method.
 */
public final class TransactionGuard implements TransactionExecutionListener {

    private final OnLeaseLost onLeaseLost;

    /** Creates the guard; {@code onLeaseLost} decides whether commits are guarded. */
    public TransactionGuard(OnLeaseLost onLeaseLost) {
        this.onLeaseLost = onLeaseLost;
    }

    /**
     * Defers {@code release} of {@code context}'s lease to the completion of the transaction active
     * on this thread; until then, {@link #deferredHolding} finds it so that a later call on the same
     * keys in the same transaction joins it.
     *
     * @return false if no transaction synchronization is active (release now)
     */
    boolean deferRelease(LockContext context, Runnable release) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            return false;
        }
        TransactionSynchronizationManager.registerSynchronization(new DeferredRelease(context, release));
        return true;
    }

    /**
     * Returns the still-held lease of {@code kind} covering all {@code keys} whose release waits for
     * the transaction active on this thread, or null. A suspended outer transaction's leases are not
     * seen (its synchronizations are suspended with it).
     */
    @Nullable
    LockContext deferredHolding(String kind, List<String> keys) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            return null;
        }
        for (TransactionSynchronization synchronization : TransactionSynchronizationManager.getSynchronizations()) {
            if (synchronization instanceof DeferredRelease deferred && deferred.covers(kind, keys)) {
                return deferred.context;
            }
        }
        return null;
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

        private final LockContext context;
        private final Runnable release;

        DeferredRelease(LockContext context, Runnable release) {
            this.context = context;
            this.release = release;
        }

        boolean covers(String kind, List<String> keys) {
            return this.context.kind().equals(kind) && this.context.keys().containsAll(keys) && this.context.isHeld();
        }

        @Override
        public void afterCompletion(int status) {
            this.release.run();
        }
    }

    /** A transaction began inside a guarded method: guard its commit. */
    @Override
    public void afterBegin(TransactionExecution transaction, Throwable beginFailure) {
        if (beginFailure == null) {
            LockContext.find().ifPresent(this::guardCommit);
        }
    }
}
