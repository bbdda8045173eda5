package dev.turnstile.redis.internal;

import dev.turnstile.redis.LeaseListener;
import dev.turnstile.redis.semaphore.Permit;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** A permit: the lease on one slot of a semaphore, with the permit's id. */
final class PermitLease implements Permit {

    private final ManagedLease lease;
    private final String id;

    PermitLease(ManagedLease lease, String id) {
        this.lease = lease;
        this.id = id;
    }

    @Override
    public String id() {
        return this.id;
    }

    @Override
    public String name() {
        return this.lease.name();
    }

    @Override
    public List<String> names() {
        return this.lease.names();
    }

    @Override
    public long fencingToken() {
        return this.lease.fencingToken();
    }

    @Override
    public Map<String, Long> fencingTokens() {
        return this.lease.fencingTokens();
    }

    @Override
    public boolean isHeld() {
        return this.lease.isHeld();
    }

    @Override
    public Duration remaining() {
        return this.lease.remaining();
    }

    @Override
    public void extend(Duration leaseTime) {
        this.lease.extend(leaseTime);
    }

    @Override
    public void confirm() {
        this.lease.confirm();
    }

    @Override
    public boolean release() {
        return this.lease.release();
    }

    @Override
    public boolean releaseAfter(Duration holdAtLeast) {
        return this.lease.releaseAfter(holdAtLeast);
    }

    @Override
    public void onLost(LeaseListener listener) {
        this.lease.onLost(listener);
    }

    @Override
    public void close() {
        this.lease.close();
    }

    @Override
    public String toString() {
        return this.lease.toString();
    }
}
