/**
 * Spring Integration's lock SPI on Turnstile: {@link dev.turnstile.integration.TurnstileLockRegistry}
 * and its auto-configuration.
 */
@NullMarked
package dev.turnstile.integration;

import org.jspecify.annotations.NullMarked;
