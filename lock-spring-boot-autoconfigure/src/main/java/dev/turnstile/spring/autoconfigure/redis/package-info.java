/** The Redis connection Turnstile uses; declare a {@link RedisConnection} bean to choose it yourself. */
@NullMarked
package dev.turnstile.spring.autoconfigure.redis;

import org.jspecify.annotations.NullMarked;
