package dev.turnstile.spring.internal.aop;

import dev.turnstile.redis.LeaseKind;
import dev.turnstile.spring.aop.Refusal;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs the refusals of guards that only observe: one INFO line per guard at most once a {@link
 * #INTERVAL}, with what it would have refused since its last line. Thread-safe.
 */
final class ObservedRefusals {

    static final Duration INTERVAL = Duration.ofMinutes(1);

    // The category it had before the class moved: logging settings name it.
    private static final Logger log = LoggerFactory.getLogger("dev.turnstile.spring.aop.ObservedRefusals");

    private final LongSupplier nanoTime;
    private final Map<String, Window> windows = new ConcurrentHashMap<>();

    /** Counts by {@code nanoTime} ({@code System::nanoTime}). */
    ObservedRefusals(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** Counts one refusal of the guard, and logs the count when its last line is a minute old. */
    void refused(LeaseKind kind, String name, Refusal reason) {
        String guard = kind.label() + " '" + name + "'";
        Window window = this.windows.computeIfAbsent(guard, key -> new Window());
        window.counts.get(reason).increment();
        long now = this.nanoTime.getAsLong();
        long last = window.lastLine.get();
        if (last != Long.MIN_VALUE && now - last < INTERVAL.toNanos()) {
            return;
        }
        if (!window.lastLine.compareAndSet(last, now)) {
            return; // another thread logs this minute's line
        }
        long total = 0;
        StringBuilder reasons = new StringBuilder();
        for (Map.Entry<Refusal, LongAdder> count : window.counts.entrySet()) {
            long n = count.getValue().sumThenReset();
            if (n > 0) {
                total += n;
                reasons.append(reasons.length() == 0 ? "" : ", ")
                        .append(count.getKey().label())
                        .append(' ')
                        .append(n);
            }
        }
        if (total > 0) {
            log.info(
                    "The {} only observes: it would have refused {} call(s) ({}) since {}, and they ran."
                            + " Read turnstile.observed.refusals and, for a semaphore, turnstile.semaphore.concurrency"
                            + " to choose its limit; enforce it with turnstile.enforced-names or turnstile.enforce=true",
                    guard,
                    total,
                    reasons,
                    last == Long.MIN_VALUE ? "the start" : "its last line");
        }
    }

    private static final class Window {
        final AtomicLong lastLine = new AtomicLong(Long.MIN_VALUE);
        final Map<Refusal, LongAdder> counts = new EnumMap<>(Refusal.class);

        Window() {
            for (Refusal reason : Refusal.values()) {
                this.counts.put(reason, new LongAdder());
            }
        }
    }
}
