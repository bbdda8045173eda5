package dev.turnstile.spring.internal.aop;

import dev.turnstile.redis.LeaseKind;

/**
 * What belongs to one kind of guard only: a {@link LockSpec} or a {@link SemaphoreSpec}. Sealed,
 * so code that handles one kind handles both or says which it ignores.
 */
sealed interface GuardSpec permits LockSpec, SemaphoreSpec {

    /** Returns which annotation this came from. */
    LeaseKind kind();
}
