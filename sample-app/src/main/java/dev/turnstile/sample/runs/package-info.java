/**
 * The page's long runs: the book's Table 6.3 and the lock lab, started over HTTP, run in the
 * background on databases of their own, and polled for progress and results.
 */
package dev.turnstile.sample.runs;
