package dev.turnstile.redis.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LeaseLostEvent;
import dev.turnstile.redis.LeaseLostEvent.Reason;
import dev.turnstile.redis.LockLostException;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.PartitionProxy;
import dev.turnstile.test.redis.RedisClients;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * A holder cut off from Redis by a network partition (bytes held back, nothing closed) must hear
 * that it lost its lease when the lease's deadline passes, while still cut off, whatever its
 * renewal is doing; and its late release after the partition heals must not touch the new owner.
 */
class PartitionIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private PartitionProxy proxy;
    private UnifiedJedis cutOffClient;
    private Turnstile cutOff;
    private UnifiedJedis directClient;
    private Turnstile direct;
    private final List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();

    @BeforeEach
    void connect() {
        this.proxy = PartitionProxy.to(redis.server().hostAndPort());
        // A socket timeout well past the lease: a renewal sent into the partition blocks that long.
        this.cutOffClient = RedisClients.standalone(
                this.proxy.hostAndPort(),
                DefaultJedisClientConfig.builder().socketTimeoutMillis(8000).build());
        this.cutOff = Turnstile.builder(this.cutOffClient)
                .defaultLease(Duration.ofSeconds(1))
                .build();
        this.directClient = redis.server().newClient(Duration.ofSeconds(2));
        this.direct = Turnstile.builder(this.directClient).build();
    }

    @AfterEach
    void close() {
        this.proxy.close();
        this.cutOff.close();
        this.cutOffClient.close();
        this.direct.close();
        this.directClient.close();
    }

    @Test
    void aPartitionedLockHolderHearsOfTheLossOnceAndItsLateReleaseLeavesTheNewOwnerAlone() {
        partitionedHolderHearsOfTheLoss(
                turnstile -> turnstile.lock("job").tryAcquire(Duration.ZERO, null), "turnstile:lock:{job}");
    }

    @Test
    void aPartitionedPermitHolderHearsOfTheLossOnceAndItsLateReleaseLeavesTheNewHolderAlone() {
        partitionedHolderHearsOfTheLoss(
                turnstile -> turnstile
                        .semaphore("slots", 1)
                        .tryAcquire(Duration.ZERO, null)
                        .map(p -> p),
                "turnstile:sem:{slots}");
    }

    @Test
    void aReleaseDuringThePartitionOfALeaseAlreadyLostAnswersFalseWithoutWaitingForRedis() {
        Lease held = this.cutOff.lock("job").tryAcquire(Duration.ZERO, null).orElseThrow();
        held.onLost(this.lost::add);
        this.proxy.partition();
        await().atMost(Duration.ofSeconds(3)).until(() -> this.lost.size() == 1);

        CompletableFuture<Boolean> release = CompletableFuture.supplyAsync(held::release);
        // The client's socket timeout is 8 s: a release that waited for Redis would still be stuck.
        Boolean answer = await().atMost(Duration.ofSeconds(2))
                .alias("release returns while the partition lasts")
                .until(() -> release.getNow(null), a -> a != null);
        assertThat(answer).as("the lease was lost, and release says so").isFalse();
        assertThat(this.proxy.isPartitioned()).isTrue();
        Lease next = await().atMost(Duration.ofSeconds(5))
                .until(() -> this.direct.lock("job").tryAcquire(Duration.ZERO, null), Optional::isPresent)
                .orElseThrow();

        this.proxy.heal();
        // The freeing of what was left of the lost grant arrives now, owner-checked: it changes nothing.
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(next::isHeld);
        assertThat(next.release()).isTrue();
    }

    private void partitionedHolderHearsOfTheLoss(Function<Turnstile, Optional<Lease>> take, String key) {
        Lease held = take.apply(this.cutOff).orElseThrow();
        held.onLost(this.lost::add);
        await().during(Duration.ofMillis(1500))
                .atMost(Duration.ofSeconds(3))
                .alias("renewed across more than one lease time")
                .until(held::isHeld);

        this.proxy.partition();
        Lease next = await().atMost(Duration.ofSeconds(5))
                .until(() -> take.apply(this.direct), Optional::isPresent)
                .orElseThrow();
        assertThat(held.isHeld()).as("the cut-off holder knows it is not held").isFalse();
        await().atMost(Duration.ofSeconds(1))
                .alias("the loss is reported while the partition lasts")
                .until(() -> this.lost.size() == 1);
        assertThat(this.proxy.isPartitioned()).isTrue();
        assertThat(this.lost.get(0).reason()).isEqualTo(Reason.RENEWAL_MISSED);
        assertThat(this.lost.get(0).fencingToken()).isEqualTo(held.fencingToken());

        String before = this.directClient.type(key).equals("string")
                ? this.directClient.get(key)
                : this.directClient.zrange(key, 0, -1).toString();
        this.proxy.heal();
        assertThat(held.release())
                .as("release tells the caller the lease was lost")
                .isFalse();
        held.close();
        // The renewal that was stuck in the partition reaches Redis now; it must change nothing.
        await().during(Duration.ofMillis(1200)).atMost(Duration.ofSeconds(3)).until(() -> this.lost.size() == 1);
        String after = this.directClient.type(key).equals("string")
                ? this.directClient.get(key)
                : this.directClient.zrange(key, 0, -1).toString();
        assertThat(after).as("the new owner's grant is untouched").isEqualTo(before);
        assertThat(next.isHeld()).isTrue();
        next.extend(Duration.ofSeconds(30));
        assertThat(next.release()).isTrue();
    }

    @Test
    void anExtensionConfirmedOnlyAfterTheDeadlineThrowsInsteadOfReturning() {
        Lease held = this.cutOff.lock("ext").acquire(Duration.ZERO, Duration.ofSeconds(1));
        held.onLost(this.lost::add);
        this.proxy.partition();
        // The grant outlives the holder's own deadline in Redis (as after a renewal whose reply was lost).
        this.directClient.pexpire("turnstile:lock:{ext}", 60_000);
        CompletableFuture<Throwable> extension = CompletableFuture.supplyAsync(() -> {
            try {
                held.extend(Duration.ofSeconds(30));
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        await().atMost(Duration.ofSeconds(3)).until(() -> this.lost.size() == 1);
        assertThat(extension).isNotDone();
        this.proxy.heal();

        assertThat(extension.join())
                .as("the extension reached Redis only after the lease was reported lost")
                .isInstanceOf(LockLostException.class);
        assertThat(this.directClient.exists("turnstile:lock:{ext}"))
                .as("the grant the late extension renewed is freed at once, not left for 30 s")
                .isFalse();
        assertThat(held.isHeld()).isFalse();
        assertThat(held.release()).isFalse();
    }

    private static long subscribers(String channel) {
        try (Jedis connection = redis.server().connect()) {
            return connection.pubsubNumSub(channel).get(channel);
        }
    }

    @Test
    void aWaiterWhoseWakeUpWasPublishedIntoThePartitionStillGetsTheLockAfterItHeals() {
        Lease held = this.direct.lock("handoff").acquire(Duration.ZERO, Duration.ofSeconds(30));
        CompletableFuture<Optional<Lease>> waiter = CompletableFuture.supplyAsync(
                () -> this.cutOff.lock("handoff").tryAcquire(Duration.ofSeconds(20), null));
        await().atMost(Duration.ofSeconds(5))
                .alias("the cut-off waiter listens for the release")
                .until(() -> subscribers("turnstile:lock:{handoff}") > 0);

        this.proxy.partition();
        assertThat(held.release()).isTrue();
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !waiter.isDone());
        this.proxy.heal();

        Lease taken = waiter.join().orElseThrow();
        assertThat(taken.isHeld()).isTrue();
        assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(taken.release()).isTrue();
    }
}
