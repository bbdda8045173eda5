package dev.turnstile.spring.internal.aop;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The lease of a guarded call that joined keys its thread already holds (in outer calls) and took
 * the others itself: held while every part is held; its listeners hear the first part lost, once.
 * Only the part the call took is the call's to end: {@link #release()}, {@link #releaseAfter} and
 * {@link #close()} end that part alone, and the joined parts end with the calls that took them.
 */
final class JoinedLease implements Lease {

    private final List<String> names;
    private final List<Lease> joined;
    private final @Nullable Lease own;

    /**
     * @param names the call's keys, sorted
     * @param joined the outer calls' leases that hold some of them
     * @param own the lease of the keys the call took itself; null if the outer calls hold them all
     */
    JoinedLease(List<String> names, List<Lease> joined, @Nullable Lease own) {
        this.names = List.copyOf(names);
        this.joined = List.copyOf(joined);
        this.own = own;
    }

    private List<Lease> parts() {
        List<Lease> parts = new ArrayList<>(this.joined);
        if (this.own != null) {
            parts.add(this.own);
        }
        return parts;
    }

    @Override
    public String name() {
        return String.join(",", this.names);
    }

    @Override
    public List<String> names() {
        return this.names;
    }

    @Override
    public long fencingToken() {
        if (this.names.size() != 1) {
            throw new IllegalStateException(
                    "A lease on several locks (" + name() + ") has one fencing token per name: use fencingTokens()");
        }
        return fencingTokens().get(this.names.get(0));
    }

    /** The token of each of the call's keys, from the part that holds it. */
    @Override
    public Map<String, Long> fencingTokens() {
        Map<String, Long> tokens = new TreeMap<>();
        for (Lease part : parts()) {
            part.fencingTokens().forEach((name, token) -> {
                if (this.names.contains(name)) {
                    tokens.putIfAbsent(name, token);
                }
            });
        }
        return tokens;
    }

    @Override
    public boolean isHeld() {
        return parts().stream().allMatch(Lease::isHeld);
    }

    @Override
    public Duration remaining() {
        return parts().stream().map(Lease::remaining).min(Duration::compareTo).orElse(Duration.ZERO);
    }

    /** Extends every part, the joined ones too: the call needs all of its keys for as long. */
    @Override
    public void extend(Duration leaseTime) {
        parts().forEach(part -> part.extend(leaseTime));
    }

    @Override
    public void confirm() {
        parts().forEach(Lease::confirm);
    }

    @Override
    public boolean release() {
        return this.own != null && this.own.release();
    }

    @Override
    public boolean releaseAfter(Duration holdAtLeast) {
        return this.own != null && this.own.releaseAfter(holdAtLeast);
    }

    @Override
    public void onLost(LeaseListener listener) {
        AtomicBoolean told = new AtomicBoolean();
        parts().forEach(part -> part.onLost(event -> {
            if (told.compareAndSet(false, true)) {
                listener.leaseLost(event);
            }
        }));
    }

    @Override
    public void close() {
        if (this.own != null) {
            this.own.close();
        }
    }

    @Override
    public String toString() {
        return "lock lease " + this.names + " (joined " + this.joined + ", own " + this.own + ")";
    }
}
