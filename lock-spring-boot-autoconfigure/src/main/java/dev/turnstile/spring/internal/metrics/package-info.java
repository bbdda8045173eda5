/** The Micrometer observer and meter descriptions. Not an API: observe through {@link dev.turnstile.spring.aop.GuardObserver} or an {@link dev.turnstile.spring.metrics.AcquireObservationConvention}. */
@NullMarked
package dev.turnstile.spring.internal.metrics;

import org.jspecify.annotations.NullMarked;
