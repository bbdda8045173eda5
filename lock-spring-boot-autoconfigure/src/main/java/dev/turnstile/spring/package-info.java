/** {@link dev.turnstile.spring.LockContext}: what an annotated method can read about its own lease. */
@NullMarked
package dev.turnstile.spring;

import org.jspecify.annotations.NullMarked;
