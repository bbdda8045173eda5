/**
 * What an application writes against around {@code @DistributedLock} and {@code @Semaphore}: a
 * {@link dev.turnstile.spring.aop.GuardObserver} to hear guarded calls, the {@link
 * dev.turnstile.spring.aop.Refusal} it is told of, the {@link dev.turnstile.spring.aop.OnLeaseLost}
 * mode, and the {@link dev.turnstile.spring.aop.InvalidGuardException} a misconfigured annotation
 * fails the start with. The aspect itself lives in {@code dev.turnstile.spring.internal.aop}.
 */
@NullMarked
package dev.turnstile.spring.aop;

import org.jspecify.annotations.NullMarked;
