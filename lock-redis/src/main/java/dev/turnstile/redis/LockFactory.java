package dev.turnstile.redis;

import java.util.Collection;

/**
 * Hands out {@link NamedLock}s: {@link Turnstile} in one Redis deployment, {@code Redlock} over
 * several independent masters. Code that locks through this interface runs on either.
 */
public interface LockFactory {

    /**
     * Returns the lock on {@code name}.
     *
     * @throws IllegalArgumentException if {@code name} is null or blank
     */
    NamedLock lock(String name);

    /**
     * Returns one lock over all {@code names}: acquired all-or-nothing, in sorted order.
     *
     * @throws IllegalArgumentException if there is no name, or one is null or blank
     */
    NamedLock lock(Collection<String> names);
}
