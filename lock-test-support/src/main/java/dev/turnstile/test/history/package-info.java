/**
 * Histories of holds and the one checker that judges them: every fault test records each hold
 * (process, thread, primitive, name, fencing token, when it was asked for, granted and ended, and
 * whether and when its loss was reported) and {@link dev.turnstile.test.history.HistoryChecker}
 * decides whether what happened is explained.
 */
@NullMarked
package dev.turnstile.test.history;

import org.jspecify.annotations.NullMarked;
