/**
 * The lock lab: the five stages of locking in Redis in Action chapter 6 (naive SETNX lock, SETNX
 * with EXPIRE and the TTL repair, the basic semaphore, the fair semaphore, the fair semaphore
 * guarded by a lock), each put through the fault that breaks it, beside Turnstile's lock and
 * semaphore. Faithful re-implementations of the book's Python, for demonstration only.
 */
package dev.turnstile.sample.lab;
