/**
 * Real {@code redis-server} processes for tests: started on free loopback ports, controlled
 * (stop, kill -9, SIGSTOP/SIGCONT, restart on the same port, flush) and always reaped; plus child
 * JVMs for tests that need a second process to crash.
 */
@NullMarked
package dev.turnstile.test.redis;

import org.jspecify.annotations.NullMarked;
