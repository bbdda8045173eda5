/** Auto-configuration of Turnstile: the Redis client, the {@code Turnstile}, the aspect, startup validation. */
@NullMarked
package dev.turnstile.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
