package dev.turnstile.redis.internal;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseListener;
import dev.turnstile.redis.TurnstileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/**
 * A lease on several lock names at once. Held while every part is held; released in reverse
 * order; its listeners hear the first part that is lost, once.
 */
final class MultiLease implements Lease {

    private final List<Lease> parts;

    MultiLease(List<Lease> parts) {
        this.parts = List.copyOf(parts);
    }

    @Override
    public String name() {
        return this.parts.stream().map(Lease::name).collect(Collectors.joining(","));
    }

    @Override
    public List<String> names() {
        return this.parts.stream().map(Lease::name).toList();
    }

    @Override
    public long fencingToken() {
        throw new IllegalStateException(
                "A lease on several locks (" + name() + ") has one fencing token per name: use fencingTokens()");
    }

    @Override
    public Map<String, Long> fencingTokens() {
        Map<String, Long> tokens = new LinkedHashMap<>();
        this.parts.forEach(part -> tokens.put(part.name(), part.fencingToken()));
        return tokens;
    }

    @Override
    public boolean isHeld() {
        return this.parts.stream().allMatch(Lease::isHeld);
    }

    @Override
    public Duration remaining() {
        return this.parts.stream()
                .map(Lease::remaining)
                .min(Duration::compareTo)
                .orElse(Duration.ZERO);
    }

    @Override
    public void extend(Duration leaseTime) {
        this.parts.forEach(part -> part.extend(leaseTime));
    }

    @Override
    public void confirm() {
        this.parts.forEach(Lease::confirm);
    }

    @Override
    public boolean release() {
        return releaseAfter(Duration.ZERO);
    }

    @Override
    public boolean releaseAfter(Duration holdAtLeast) {
        boolean allFreed = true;
        TurnstileException failure = null;
        for (Lease part : reversedParts()) {
            try {
                allFreed &= part.releaseAfter(holdAtLeast);
            } catch (TurnstileException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return allFreed;
    }

    @Override
    public void onLost(LeaseListener listener) {
        AtomicBoolean told = new AtomicBoolean();
        this.parts.forEach(part -> part.onLost(event -> {
            if (told.compareAndSet(false, true)) {
                listener.leaseLost(event);
            }
        }));
    }

    @Override
    public void close() {
        reversedParts().forEach(Lease::close);
    }

    private List<Lease> reversedParts() {
        List<Lease> reversed = new ArrayList<>(this.parts);
        Collections.reverse(reversed);
        return reversed;
    }

    @Override
    public String toString() {
        return "lock lease " + this.parts;
    }
}
