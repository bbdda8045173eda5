package dev.turnstile.redis.semaphore;

import java.time.Duration;

/**
 * A live permit as Redis sees it.
 *
 * @param id the permit's id
 * @param remaining how long until it expires unless refreshed, by the server's clock
 */
public record PermitHolder(String id, Duration remaining) {}
