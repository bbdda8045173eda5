package dev.turnstile.sample.web;

import dev.turnstile.redis.Lease;
import dev.turnstile.spring.aop.GuardKind;
import dev.turnstile.spring.aop.GuardObserver;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The marketplace's recent trades and the locks they took, newest first: the page's lock log. For
 * each trade: who traded, which locks its strategy took (the names the annotation resolved), how
 * long the call waited for them, the fencing token of each, how long it held them, and how the
 * trade ended. Two buyers of one listing show up as one that bought it and one that waited for the
 * lock, then found it sold.
 *
 * <p>A {@link GuardObserver} bean, so the starter tells it about every {@code @DistributedLock}
 * acquisition on the thread that makes it; a trade {@link #begin begun} on that thread records it.
 * In memory and for this instance only; it keeps the last {@value #KEEP} trades. Thread-safe.
 */
@Component
public class TradeLog implements GuardObserver {

    /** How many trades the log keeps. */
    static final int KEEP = 20;

    private final ThreadLocal<Entry> current = new ThreadLocal<>();
    private final Deque<Entry> entries = new ArrayDeque<>();
    private long nextId = 1;

    /**
     * One trade as the page shows it.
     *
     * @param id its number in this instance, from 1
     * @param at when it started (epoch milliseconds)
     * @param action {@code buy} or {@code list}
     * @param who the buyer or the seller
     * @param itemId the item
     * @param sellerId its seller
     * @param price the price
     * @param strategy watch, lock or fine
     * @param slow whether it was a slow trade (the locks held a few seconds longer)
     * @param state {@code waiting} for its locks, {@code holding} them, {@code running} (no lock:
     *     WATCH), or {@code done}
     * @param locks the locks' names, resolved once acquired (the annotation's key template while it
     *     waits); null under WATCH
     * @param waitedMillis how long it waited for its locks (so far, while waiting); null under WATCH
     * @param fencingTokens each lock's fencing token, once acquired
     * @param heldMillis how long it held its locks (so far, while holding); null before
     * @param outcome how it ended: an {@code Outcome} name, {@code BUSY} (the locks stayed taken for
     *     the whole wait), {@code UNAVAILABLE} (Redis) or {@code FAILED}; null while it runs
     * @param retries WATCH transactions thrown away and retried
     */
    public record Trade(
            long id,
            long at,
            String action,
            String who,
            String itemId,
            String sellerId,
            long price,
            String strategy,
            boolean slow,
            String state,
            @Nullable String locks,
            @Nullable Long waitedMillis,
            Map<String, Long> fencingTokens,
            @Nullable Long heldMillis,
            @Nullable String outcome,
            int retries) {}

    /**
     * Starts recording a trade made on this thread, until {@link Entry#close()}.
     *
     * @param action {@code buy} or {@code list}
     * @param who the buyer or the seller
     */
    public Entry begin(
            String action, String who, String itemId, String sellerId, long price, String strategy, boolean slow) {
        Entry entry;
        synchronized (this) {
            entry = new Entry(this.nextId++, action, who, itemId, sellerId, price, strategy, slow);
            this.entries.addFirst(entry);
            while (this.entries.size() > KEEP) {
                this.entries.removeLast();
            }
        }
        this.current.set(entry);
        return entry;
    }

    /** The kept trades, newest first. */
    public synchronized List<Trade> recent() {
        long now = System.nanoTime();
        return this.entries.stream().map(entry -> entry.snapshot(now)).toList();
    }

    @Override
    public Optional<? extends Lease> observeAcquire(
            GuardKind kind, String name, Supplier<Optional<? extends Lease>> acquire) {
        Entry entry = this.current.get();
        if (kind != GuardKind.LOCK || entry == null) {
            return acquire.get();
        }
        long start = System.nanoTime();
        synchronized (this) {
            entry.waiting(name, start);
        }
        Optional<? extends Lease> lease = acquire.get();
        long now = System.nanoTime();
        synchronized (this) {
            if (lease.isPresent()) {
                entry.acquired(now, lease.get());
            } else {
                entry.waitedNanos = now - start;
            }
        }
        return lease;
    }

    @Override
    public void released(GuardKind kind, String name, Duration held) {
        Entry entry = this.current.get();
        if (kind == GuardKind.LOCK && entry != null) {
            synchronized (this) {
                entry.heldNanos = held.toNanos();
            }
        }
    }

    /** A trade being recorded; closing it ends the recording on this thread. */
    public final class Entry implements AutoCloseable {

        private final long id;
        private final long at = System.currentTimeMillis();
        private final String action;
        private final String who;
        private final String itemId;
        private final String sellerId;
        private final long price;
        private final String strategy;
        private final boolean slow;
        private @Nullable String locks;
        private long waitStart;
        private @Nullable Long waitedNanos;
        private Map<String, Long> fencingTokens = Map.of();
        private long acquiredAt;
        private @Nullable Long heldNanos;
        private @Nullable String outcome;
        private int retries;

        private Entry(
                long id,
                String action,
                String who,
                String itemId,
                String sellerId,
                long price,
                String strategy,
                boolean slow) {
            this.id = id;
            this.action = action;
            this.who = who;
            this.itemId = itemId;
            this.sellerId = sellerId;
            this.price = price;
            this.strategy = strategy;
            this.slow = slow;
        }

        private void waiting(String template, long start) {
            this.locks = template;
            this.waitStart = start;
        }

        private void acquired(long now, Lease lease) {
            this.waitedNanos = now - this.waitStart;
            this.acquiredAt = now;
            this.locks = String.join(", ", lease.names());
            this.fencingTokens = new LinkedHashMap<>(lease.fencingTokens());
        }

        /** Records how the trade ended: an outcome name, BUSY, UNAVAILABLE or FAILED. */
        public void end(String outcome, int retries) {
            synchronized (TradeLog.this) {
                this.outcome = outcome;
                this.retries = retries;
            }
        }

        /** What was recorded so far. */
        public Trade snapshot() {
            synchronized (TradeLog.this) {
                return snapshot(System.nanoTime());
            }
        }

        private Trade snapshot(long now) {
            String state;
            Long waited = this.waitedNanos;
            Long held = this.heldNanos;
            if (this.outcome != null) {
                state = "done";
            } else if (this.locks == null) {
                state = "running";
            } else if (waited == null) {
                state = "waiting";
                waited = now - this.waitStart;
            } else {
                state = "holding";
                if (held == null && this.acquiredAt != 0) {
                    held = now - this.acquiredAt;
                }
            }
            return new Trade(
                    this.id,
                    this.at,
                    this.action,
                    this.who,
                    this.itemId,
                    this.sellerId,
                    this.price,
                    this.strategy,
                    this.slow,
                    state,
                    this.locks,
                    millis(waited),
                    Collections.unmodifiableMap(new LinkedHashMap<>(this.fencingTokens)),
                    millis(held),
                    this.outcome,
                    this.retries);
        }

        /** Stops recording on this thread; a trade that ended no other way is {@code FAILED}. */
        @Override
        public void close() {
            TradeLog.this.current.remove();
            synchronized (TradeLog.this) {
                if (this.outcome == null) {
                    this.outcome = "FAILED";
                }
            }
        }
    }

    private static @Nullable Long millis(@Nullable Long nanos) {
        return nanos == null ? null : Duration.ofNanos(nanos).toMillis();
    }
}
