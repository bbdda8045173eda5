package dev.turnstile.spring.aop;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.annotation.OnFailure;
import dev.turnstile.annotation.Semaphore;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.spring.LockContext;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.transaction.annotation.Transactional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Beans with guarded methods, shared by the aspect tests. */
final class GuardedServices {

    private GuardedServices() {}

    /** A hold: [node, key, start nanos, end nanos]. */
    record Hold(String node, String key, long start, long end) {}

    static final List<Hold> HOLDS = new CopyOnWriteArrayList<>();

    /** Another process's Turnstile, for guarded methods that look at Redis as another process sees it. */
    static final AtomicReference<Turnstile> OTHER = new AtomicReference<>();

    /** A class without interfaces: proxied with CGLIB. */
    static class Inventory {

        private final String node;
        private final ObjectProvider<Inventory> self;

        Inventory(String node, ObjectProvider<Inventory> self) {
            this.node = node;
            this.self = self;
        }

        @DistributedLock(key = "item:#itemId", waitTime = "30s")
        public void buy(String itemId, Runnable work) {
            long start = System.nanoTime();
            work.run();
            HOLDS.add(new Hold(this.node, itemId, start, System.nanoTime()));
        }

        @DistributedLock(key = "item:#itemId")
        public long[] outerAndInner(String itemId) {
            long outer = LockContext.current().fencingToken();
            long inner = this.self.getObject().inner(itemId);
            return new long[] {outer, inner};
        }

        @DistributedLock(key = "item:#itemId", waitTime = "0s")
        public long inner(String itemId) {
            return LockContext.current().fencingToken();
        }

        /** Holds {@code item:<held>} and calls {@link #both}; returns [outer token, what both returned, whether {@code item:<wanted>} and {@code item:<held>} are taken after it]. */
        @DistributedLock(key = "item:#held", waitTime = "1s")
        public List<Object> holdOneThenBoth(String held, String wanted) {
            long outer = LockContext.current().fencingToken();
            List<Object> inner = this.self.getObject().both(held, wanted);
            return List.of(outer, inner, takenElsewhere("item:" + wanted), takenElsewhere("item:" + held));
        }

        /** Returns [this call's keys, its fencing tokens, whether {@code item:<a>} and {@code item:<b>} are taken]. */
        @DistributedLock(key = {"item:#a", "item:#b"}, waitTime = "1s")
        public List<Object> both(String a, String b) {
            LockContext context = LockContext.current();
            return List.of(
                    context.keys(), context.fencingTokens(), takenElsewhere("item:" + a), takenElsewhere("item:" + b));
        }

        /** Whether another process ({@link #OTHER}) finds {@code key} taken. */
        private static boolean takenElsewhere(String key) {
            return OTHER.get().lock(key).tryAcquire().map(lease -> {
                lease.release();
                return false;
            }).orElse(true);
        }

        @DistributedLock(
                key = {"account:#from", "account:#to"},
                waitTime = "10s")
        public List<String> transfer(String from, String to) {
            return LockContext.current().keys();
        }

        @DistributedLock(key = "busy:#id", waitTime = "0s", fallback = "whenBusy")
        public String withFallback(String id) {
            return "ran";
        }

        String whenBusy(String id, Throwable failure) {
            return "busy " + id + " " + failure.getClass().getSimpleName();
        }

        @DistributedLock(key = "busy:#id", waitTime = "0s")
        public String throwing(String id) {
            return "ran";
        }

        @DistributedLock(key = "busy:#id", waitTime = "0s", onFailure = OnFailure.SKIP)
        public String skipString(String id) {
            return "ran";
        }

        @DistributedLock(key = "busy:#id", waitTime = "0s", onFailure = OnFailure.SKIP)
        public Optional<String> skipOptional(String id) {
            return Optional.of("ran");
        }

        @DistributedLock(key = "busy:#id", waitTime = "0s", onFailure = OnFailure.SKIP)
        public CompletableFuture<String> skipFuture(String id) {
            return CompletableFuture.completedFuture("ran");
        }

        @DistributedLock(key = "busy:#id", waitTime = "0s", onFailure = OnFailure.SKIP)
        public Mono<String> skipMono(String id) {
            return Mono.just("ran");
        }

        @DistributedLock(key = "busy:#id", waitTime = "0s", onFailure = OnFailure.SKIP)
        public Flux<String> skipFlux(String id) {
            return Flux.just("ran");
        }

        @DistributedLock(key = "busy:#id", waitTime = "0s", onFailure = OnFailure.SKIP)
        public void skipVoid(String id, Runnable work) {
            work.run();
        }

        @DistributedLock(key = "async:#id")
        public CompletableFuture<String> later(String id, CompletableFuture<String> result) {
            return result;
        }

        @DistributedLock(key = "reactive:#id")
        public Mono<String> mono(String id, Mono<String> result) {
            return result;
        }

        @DistributedLock(key = "reactive:#id")
        public Flux<String> flux(String id, Flux<String> result) {
            return result;
        }

        @DistributedLock(key = "when:#id", condition = "#id.startsWith('locked')", waitTime = "0s")
        public String conditional(String id) {
            return LockContext.find().map(LockContext::key).orElse("no lock");
        }

        @DistributedLock(key = "tx:#id")
        @Transactional
        public String transactional(String id, Supplier<String> work) {
            return work.get();
        }

        @DistributedLock(key = "tx:#id", leaseTime = "200ms")
        @Transactional
        public String transactionalOutlivingItsLease(String id) {
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (LockContext.current().isHeld() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            return "done";
        }

        @DistributedLock(key = "slow:#id", leaseTime = "200ms")
        public String outlivesItsLease(String id) {
            try {
                boolean woken =
                        new java.util.concurrent.CountDownLatch(1).await(1, java.util.concurrent.TimeUnit.SECONDS);
                return woken ? "woken" : "ran to the end";
            } catch (InterruptedException e) {
                return "interrupted";
            }
        }

        @DistributedLock(key = "tx:#id")
        public String joinsOuterTransaction(String id) {
            return "done";
        }
    }

    /** Debit and credit of one account: the same lock key, called twice in one transaction. */
    static class Accounts {

        @DistributedLock(key = "account:#accountId", waitTime = "500ms")
        public long debit(String accountId, long cents) {
            return LockContext.current().fencingToken();
        }

        @DistributedLock(key = "account:#accountId", waitTime = "500ms")
        public long credit(String accountId, long cents) {
            return LockContext.current().fencingToken();
        }

        /** Both guards on one method: the lock is taken outside the semaphore. */
        @DistributedLock(key = "statement:#accountId", waitTime = "0s")
        @Semaphore(key = "statements", limit = 1)
        public <T> T statement(String accountId, Supplier<T> probe) {
            return probe.get();
        }
    }

    /** A short fixed lease, and a call on the same key that needs a longer one. */
    static class Ledger {

        @DistributedLock(key = "ledger:#accountId", leaseTime = "300ms")
        public long open(String accountId) {
            return LockContext.current().fencingToken();
        }

        @DistributedLock(key = "ledger:#accountId", leaseTime = "30s")
        public long settle(String accountId) {
            return LockContext.current().lease().remaining().toMillis();
        }
    }

    /** Another bean locking the same account key. */
    static class Audit {

        @DistributedLock(key = "account:#accountId", waitTime = "500ms")
        public long record(String accountId) {
            return LockContext.current().fencingToken();
        }
    }

    /** An interface: its implementation is proxied with a JDK proxy. */
    interface PartnerApi {
        String call(String accountId, Runnable work);

        int tiered(String accountId, int tier);
    }

    static class PartnerApiClient implements PartnerApi {

        @Override
        @Semaphore(key = "account:#accountId", limit = 5)
        public String call(String accountId, Runnable work) {
            work.run();
            return "ok";
        }

        @Override
        @Semaphore(key = "tier:#accountId", limitExpression = "#{#tier * 2}")
        public int tiered(String accountId, int tier) {
            return tier;
        }
    }
}
