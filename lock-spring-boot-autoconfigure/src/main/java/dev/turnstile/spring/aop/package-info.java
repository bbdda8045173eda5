/**
 * The aspects behind {@code @DistributedLock} and {@code @Semaphore}, and the support they
 * delegate to: operation metadata, acquisition, invocation per return type, failure handling.
 */
@NullMarked
package dev.turnstile.spring.aop;

import org.jspecify.annotations.NullMarked;
