/** Turnstile's Spring Boot 4 auto-configuration: connection details and health. */
@NullMarked
package dev.turnstile.spring.boot4;

import org.jspecify.annotations.NullMarked;
