package dev.turnstile.spring.internal.aop;

import dev.turnstile.redis.LeaseKind;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * What only a {@code @DistributedLock} has.
 *
 * @param holdAtLeast how long after the grant the lock stays taken at least, or null
 * @param holdAtLeastOnFailure whether {@code holdAtLeast} applies when the method fails
 * @param condition the condition expression, or null
 * @param confirmBeforeCommit whether the lock is confirmed in Redis before each commit under it
 */
record LockSpec(
        @Nullable Duration holdAtLeast,
        boolean holdAtLeastOnFailure,
        @Nullable String condition,
        boolean confirmBeforeCommit)
        implements GuardSpec {

    @Override
    public LeaseKind kind() {
        return LeaseKind.LOCK;
    }

    /** Returns how long to hold the lock after the method ended so; zero: release at once. */
    Duration holdAfter(GuardOperation.Outcome outcome) {
        if (this.holdAtLeast == null
                || outcome == GuardOperation.Outcome.NOT_RUN
                || (outcome == GuardOperation.Outcome.FAILED && !this.holdAtLeastOnFailure)) {
            return Duration.ZERO;
        }
        return this.holdAtLeast;
    }
}
