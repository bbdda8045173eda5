/** Turnstile's Spring Boot 3.5 auto-configuration: connection details and health. */
@NullMarked
package dev.turnstile.spring.boot3;

import org.jspecify.annotations.NullMarked;
