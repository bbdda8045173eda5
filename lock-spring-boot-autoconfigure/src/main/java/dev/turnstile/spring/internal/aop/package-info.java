/** The aspect behind {@code @DistributedLock} and {@code @Semaphore} and the support it delegates to. Not an API: the types here change without notice. */
@NullMarked
package dev.turnstile.spring.internal.aop;

import org.jspecify.annotations.NullMarked;
