/** The actuator endpoint's web extension and the health check the Boot-line modules adapt. Not an API. */
@NullMarked
package dev.turnstile.spring.internal.actuate;

import org.jspecify.annotations.NullMarked;
