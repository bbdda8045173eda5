package dev.turnstile.spring.aop;

import dev.turnstile.redis.LockLostException;
import dev.turnstile.spring.LockContext;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Ties leases to Spring transactions (only used when spring-tx is on the classpath): a release
 * waits for the surrounding transaction to complete, and in {@link OnLeaseLost#ROLLBACK} mode a
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
     * Defers {@code release} to the completion of the transaction active on this thread.
     *
     * @return false if no transaction synchronization is active (release now)
     */
    boolean deferRelease(Runnable release) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            return false;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCompletion(int status) {
                release.run();
            }
        });
        return true;
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

    /** A transaction began inside a guarded method: guard its commit. */
    @Override
    public void afterBegin(TransactionExecution transaction, Throwable beginFailure) {
        if (beginFailure == null) {
            LockContext.find().ifPresent(this::guardCommit);
        }
    }
}
