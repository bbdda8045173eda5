package dev.turnstile.sample.web;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.spring.aop.GuardObserver;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The marketplace's recent trades and the locks they took, newest first: the page's lock log. For
 * each trade: who traded, which locks its strategy takes (by name, as the annotation resolves them
 * for the trade's arguments), how long it took to get them and which other trades held them
 * meanwhile, each lock's fencing token beside the one the previous trade of that lock got, how long
 * it held them, and how the trade ended. Two buyers of one listing show up as one that bought it
 * and one that waited for the first's locks, then found it sold.
 *
 * <p>A {@link GuardObserver} bean, so the starter tells it about every {@code @DistributedLock}
 * acquisition on the thread that makes it; a trade {@link #begin begun} on that thread records it.
 * In memory and for this instance only (a trade of another instance that held a lock is not
 * named); it keeps the last {@value #KEEP} trades. Thread-safe.
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
     * @param request what was asked for; its fields stand in the trade's JSON as the trade's own
     * @param state {@code waiting} for its locks, {@code holding} them, {@code running} (no lock:
     *     WATCH), or {@code done}
     * @param locks the names of the locks its strategy takes for it, resolved (also while it waits);
     *     null under WATCH
     * @param waitedMillis from asking for the locks to getting them (so far, while waiting); null
     *     under WATCH
     * @param waitedFor the trades of this instance that held one of its locks while it asked for
     *     them, oldest first; empty when it got them at once (its {@code waitedMillis} is then only
     *     the time of the call)
     * @param waitedOn which of its locks those trades held, by name
     * @param tokens each lock's fencing token, once acquired, in the order of {@code locks}
     * @param heldMillis how long it held its locks (so far, while holding); null before
     * @param outcome how it ended: an {@code Outcome} name, {@code BUSY} (the locks stayed taken for
     *     the whole wait), {@code UNAVAILABLE} (Redis) or {@code FAILED}; null while it runs
     * @param retries WATCH transactions thrown away and retried
     */
    public record Trade(
            long id,
            long at,
            @JsonUnwrapped Request request,
            String state,
            @Nullable List<String> locks,
            @Nullable Long waitedMillis,
            List<Long> waitedFor,
            List<String> waitedOn,
            List<Token> tokens,
            @Nullable Long heldMillis,
            @Nullable String outcome,
            int retries) {}

    /**
     * A lock's fencing token in one trade.
     *
     * @param lock the lock's name
     * @param value the token, in full (as text: it has more digits than a JavaScript number keeps)
     * @param shortForm its last six digits, {@code …601995}: enough to tell it from its neighbours
     *     (tokens keep pace with the Redis server's clock in microseconds, so they are long)
     * @param previousTrade the trade in the log that was granted this lock last before, or null
     * @param sincePrevious how much larger this token is than that trade's, or null; about the
     *     microseconds between the two grants
     */
    public record Token(
            String lock,
            String value,
            String shortForm,
            @Nullable Long previousTrade,
            @Nullable Long sincePrevious) {}

    /**
     * A trade as it was asked for.
     *
     * @param action {@code buy} or {@code list}
     * @param who the buyer or the seller
     * @param itemId the item
     * @param sellerId its seller
     * @param price the price
     * @param strategy watch, lock or fine
     * @param slow whether it was a slow trade (the locks held a few seconds longer)
     */
    public record Request(
            String action, String who, String itemId, String sellerId, long price, String strategy, boolean slow) {}

    /**
     * Starts recording the trade {@code request} made on this thread, until {@link Entry#close()}.
     *
     * @param locks the names of the locks the trade's strategy takes for it; empty for none
     */
    public Entry begin(Request request, List<String> locks) {
        Entry entry;
        synchronized (this) {
            entry = new Entry(this.nextId++, request, locks);
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
            LeaseKind kind, String name, Supplier<Optional<? extends Lease>> acquire) {
        Entry entry = this.current.get();
        if (kind != LeaseKind.LOCK || entry == null) {
            return acquire.get();
        }
        synchronized (this) {
            entry.waitStart = System.nanoTime();
        }
        Optional<? extends Lease> lease = acquire.get();
        synchronized (this) {
            long now = System.nanoTime();
            entry.waitedNanos = now - entry.waitStart;
            entry.addHolders(entry.waitedFor, entry.waitedOn, now);
            lease.ifPresent(granted -> entry.acquired(now, granted));
        }
        lease.ifPresent(granted -> entry.holding.complete(null));
        return lease;
    }

    @Override
    public void released(LeaseKind kind, String name, Duration held) {
        Entry entry = this.current.get();
        if (kind == LeaseKind.LOCK && entry != null) {
            synchronized (this) {
                entry.heldNanos = held.toNanos();
                entry.releasedAt = System.nanoTime();
            }
        }
    }

    /** A trade being recorded; closing it ends the recording on this thread. */
    public final class Entry implements AutoCloseable {

        private final long id;
        private final long at = System.currentTimeMillis();
        private final Request request;
        private final List<String> locks;
        private final List<Long> waitedFor = new ArrayList<>();
        private final Set<String> waitedOn = new TreeSet<>();
        private final CompletableFuture<Void> holding = new CompletableFuture<>();
        private long waitStart;
        private @Nullable Long waitedNanos;
        private Map<String, Long> fencingTokens = Map.of();
        private long acquiredAt;
        private long releasedAt;
        private @Nullable Long heldNanos;
        private @Nullable String outcome;
        private int retries;

        private Entry(long id, Request request, List<String> locks) {
            this.id = id;
            this.request = request;
            this.locks = List.copyOf(locks);
        }

        /** Completes once the trade holds its locks; never, if it takes none or does not get them. */
        public CompletableFuture<Void> holding() {
            return this.holding;
        }

        /**
         * Adds to {@code trades} the trades that held one of this trade's locks at some time between
         * asking for them and {@code until}, oldest first, and to {@code names} those locks.
         */
        private void addHolders(List<Long> trades, Set<String> names, long until) {
            for (Entry other : TradeLog.this.entries) {
                boolean held = other.acquiredAt != 0
                        && other.acquiredAt < until
                        && (other.releasedAt == 0 ? other.outcome == null : other.releasedAt > this.waitStart);
                List<String> shared =
                        other.locks.stream().filter(this.locks::contains).toList();
                if (other != this && held && !shared.isEmpty()) {
                    if (!trades.contains(other.id)) {
                        trades.add(other.id);
                    }
                    names.addAll(shared);
                }
            }
            trades.sort(null);
        }

        private void acquired(long now, Lease lease) {
            this.acquiredAt = now;
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
            } else if (this.locks.isEmpty()) {
                state = "running";
            } else if (this.waitStart == 0) {
                state = "waiting";
                waited = 0L;
            } else if (waited == null) {
                state = "waiting";
                waited = now - this.waitStart;
            } else {
                state = "holding";
                if (held == null && this.acquiredAt != 0) {
                    held = now - this.acquiredAt;
                }
            }
            List<Long> waitedFor = new ArrayList<>(this.waitedFor);
            Set<String> waitedOn = new TreeSet<>(this.waitedOn);
            if (state.equals("waiting") && this.waitStart != 0) {
                addHolders(waitedFor, waitedOn, now);
            }
            return new Trade(
                    this.id,
                    this.at,
                    this.request,
                    state,
                    this.locks.isEmpty() ? null : this.locks,
                    this.locks.isEmpty() ? null : millis(waited),
                    List.copyOf(waitedFor),
                    List.copyOf(waitedOn),
                    tokens(),
                    millis(held),
                    this.outcome,
                    this.retries);
        }

        private List<Token> tokens() {
            List<Token> tokens = new ArrayList<>();
            this.fencingTokens.forEach((lock, value) -> {
                Entry previous = null;
                for (Entry other : TradeLog.this.entries) {
                    if (other != this
                            && other.fencingTokens.containsKey(lock)
                            && other.acquiredAt < this.acquiredAt
                            && (previous == null || other.acquiredAt > previous.acquiredAt)) {
                        previous = other;
                    }
                }
                String text = Long.toString(value);
                tokens.add(new Token(
                        lock,
                        text,
                        text.length() > 6 ? "…" + text.substring(text.length() - 6) : text,
                        previous == null ? null : previous.id,
                        previous == null ? null : value - previous.fencingTokens.get(lock)));
            });
            return tokens;
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
            this.holding.complete(null);
        }
    }

    private static @Nullable Long millis(@Nullable Long nanos) {
        return nanos == null ? null : Duration.ofNanos(nanos).toMillis();
    }
}
