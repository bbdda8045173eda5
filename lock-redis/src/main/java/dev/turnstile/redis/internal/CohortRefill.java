package dev.turnstile.redis.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reserves a lock cohort's next block in Redis ({@link LockScripts#REFILL}) on the thread that has
 * just passed the lock on, so the holders keep passing it while the call is out. Redis grants the
 * block only while no other client waits for the lock, by a signal or by polling. Used on one
 * server or Sentinel with plain pub/sub and without {@code minReplicas}: there {@code PUBSUB NUMSUB}
 * sees every waiter, and reserved tokens need no replica's acknowledgement; elsewhere a cohort ends
 * with its first block.
 *
 * @param deployment where the lock lives
 * @param name the lock's name
 * @param gate the lock's gate in this process, which names its keys and release channel
 */
record CohortRefill(RedisDeployment deployment, String name, LocalGates.Gate gate) implements Cohort.Refill {

    private static final Logger log = LoggerFactory.getLogger(CohortRefill.class);

    /** The refill of lock {@code name}'s cohorts, or null where a cohort must end with its first block. */
    static Cohort.@Nullable Refill of(RedisDeployment deployment, String name, LocalGates.Gate gate) {
        boolean seesEveryWaiter =
                !deployment.topology().clustered() && !deployment.signalMode().sharded();
        if (!seesEveryWaiter || deployment.options().minReplicas() > 0) {
            return null;
        }
        return new CohortRefill(deployment, name, gate);
    }

    @Override
    public void start(Cohort cohort, long leaseNanos) {
        Duration lease = Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(leaseNanos));
        long sent = System.nanoTime();
        List<?> reply;
        try {
            reply = (List<?>) this.deployment
                    .scripts()
                    .eval(
                            LockScripts.REFILL,
                            "reserve the next holders of lock '" + this.name + "'",
                            this.gate.acquireKeys,
                            List.of(
                                    cohort.ownerToken(),
                                    this.deployment.options().fenceTtlMillis(lease),
                                    Integer.toString(cohort.holders()),
                                    this.gate.channel));
        } catch (RuntimeException e) {
            log.debug("Could not reserve the next holders of lock '{}': {}", this.name, e.getMessage());
            return; // the cohort ends with the block it has
        }
        if ((Long) reply.get(0) == 1) {
            cohort.refilled(new Cohort.Block((Long) reply.get(1), sent, (Long) reply.get(2)));
        }
    }
}
