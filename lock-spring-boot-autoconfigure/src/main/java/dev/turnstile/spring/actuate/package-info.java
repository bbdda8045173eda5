/** The {@code turnstile} actuator endpoint and health indicator. */
@NullMarked
package dev.turnstile.spring.actuate;

import org.jspecify.annotations.NullMarked;
