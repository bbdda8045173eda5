/**
 * Annotations that put a method under a distributed lock or a counting semaphore. They have no
 * dependencies; {@code lock-spring-boot-starter} gives them their behaviour.
 */
package dev.turnstile.annotation;
