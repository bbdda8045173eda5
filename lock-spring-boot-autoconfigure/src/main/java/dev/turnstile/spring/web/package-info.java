/** Refusals as HTTP answers: problem details for Spring MVC and WebFlux. */
@NullMarked
package dev.turnstile.spring.web;

import org.jspecify.annotations.NullMarked;
