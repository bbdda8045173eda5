/**
 * ShedLock's lock SPI on Turnstile: {@link dev.turnstile.shedlock.TurnstileLockProvider} and its
 * auto-configuration.
 */
@NullMarked
package dev.turnstile.shedlock;

import org.jspecify.annotations.NullMarked;
