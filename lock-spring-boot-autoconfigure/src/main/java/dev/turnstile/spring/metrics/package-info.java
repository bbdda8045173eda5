/** Micrometer metrics and observations of guarded methods and leases. */
@NullMarked
package dev.turnstile.spring.metrics;

import org.jspecify.annotations.NullMarked;
