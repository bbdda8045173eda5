/**
 * The aspect behind {@code @DistributedLock} and {@code @Semaphore}, and the support it
 * delegates to: operation metadata, acquisition, invocation per return type, failure handling.
 */
@NullMarked
package dev.turnstile.spring.aop;

import org.jspecify.annotations.NullMarked;
