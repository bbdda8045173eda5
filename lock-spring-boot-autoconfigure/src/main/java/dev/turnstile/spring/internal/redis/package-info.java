/**
 * Turnstile's Redis client in a Spring Boot application: where it connects ({@link
 * dev.turnstile.spring.autoconfigure.redis.RedisConnection}), on any Boot line.
 */
@NullMarked
package dev.turnstile.spring.internal.redis;

import org.jspecify.annotations.NullMarked;
