package dev.turnstile.redis.internal;

import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LeaseListener;
import dev.turnstile.redis.LeaseLostEvent;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every lease of one {@code Turnstile} or {@code Redlock} shares, whatever holds its grant:
 * the watchdog, the global listeners, owner tokens, and whether the instance is still open.
 * Thread-safe.
 */
final class Leases implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Leases.class);

    /** The logger that tells every lost lease, at WARN: a name users can find and configure. */
    static final String LOSS_LOGGER = "dev.turnstile.lease";

    private final Watchdog watchdog;
    private final List<LeaseListener> listeners;
    /** Sequence numbers a thread takes from {@link #ownerSequence} at once. */
    private static final int SEQUENCE_BLOCK = 1024;

    private final String ownerPrefix = UUID.randomUUID().toString();
    private final AtomicLong ownerSequence = new AtomicLong();
    /**
     * Per thread, the next sequence number of its block and the end of the block: threads of a busy
     * process do not all update one counter per grant.
     */
    private final ThreadLocal<long[]> sequenceBlock = ThreadLocal.withInitial(() -> new long[2]);

    private volatile boolean closed;

    Leases(TurnstileOptions options) {
        this.watchdog = new Watchdog(options.watchdogThreads());
        this.listeners = options.listeners();
    }

    Watchdog watchdog() {
        return this.watchdog;
    }

    /** Returns what every owner token of this instance starts with: its random id and a colon. */
    String ownerPrefix() {
        return this.ownerPrefix + ":";
    }

    /**
     * Returns a token unique to one grant: this instance's random id and a sequence number, unique
     * to the instance (each thread takes its numbers from a block of its own, so they do not follow
     * the order of grants across threads).
     */
    String newOwnerToken() {
        long[] block = this.sequenceBlock.get();
        if (block[0] == block[1]) {
            block[0] = this.ownerSequence.getAndAdd(SEQUENCE_BLOCK) + 1;
            block[1] = block[0] + SEQUENCE_BLOCK;
        }
        return this.ownerPrefix + ":" + block[0]++;
    }

    /** Tells every global listener that a lease was lost; a failing listener is logged, not rethrown. */
    void publishLoss(LeaseLostEvent event) {
        for (LeaseListener listener : this.listeners) {
            notifySafely(listener, event);
        }
    }

    /** Tells every global listener that the watchdog renewed a lease. */
    void publishRenewal(LeaseKind kind, String name) {
        for (LeaseListener listener : this.listeners) {
            try {
                listener.leaseRenewed(kind, name);
            } catch (RuntimeException e) {
                log.error("Lease listener {} failed on a renewal of {} '{}'", listener, kind.label(), name, e);
            }
        }
    }

    /** Calls {@code listener}, logging instead of propagating what it throws. */
    static void notifySafely(LeaseListener listener, LeaseLostEvent event) {
        try {
            listener.leaseLost(event);
        } catch (RuntimeException e) {
            log.error("Lease listener {} failed on {}", listener, event, e);
        }
    }

    /**
     * Fails if this instance was closed: a lease granted now could be neither renewed nor watched.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    void requireOpen() {
        if (this.closed) {
            throw new IllegalStateException("This Turnstile is closed; build a new one to acquire locks or permits");
        }
    }

    /** Refuses new grants from now on ({@link #requireOpen()} fails); held leases are still renewed. */
    void refuseNew() {
        this.closed = true;
    }

    /** Refuses new grants and stops renewing and watching: held leases expire in Redis after their lease time. */
    @Override
    public void close() {
        refuseNew();
        this.watchdog.close();
    }
}
