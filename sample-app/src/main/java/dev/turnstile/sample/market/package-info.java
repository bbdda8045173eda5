/**
 * The marketplace of Redis in Action, section 6.2, exactly as the book lays out its data: the
 * {@code market:} ZSET (member {@code itemId.sellerId}, score = price), {@code users:{id}} HASHes
 * ({@code name}, {@code funds}) and {@code inventory:{id}} SETs; with three ways to keep it
 * consistent: WATCH/MULTI/EXEC, one lock on the market, and a lock per item.
 */
package dev.turnstile.sample.market;
