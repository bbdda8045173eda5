package dev.turnstile.redis.internal;

/**
 * The fencing counter's Lua, written once and put in front of every script that issues a fencing
 * token: the lock's acquire, Redlock's acquire and the semaphore's grants.
 * Time comes from the server ({@code TIME}), never from a client.
 *
 * <p>A token is the counter plus one, but never below the server's clock in microseconds. A grant
 * may reserve a block of tokens (the lock cohort's holders use them in order); the counter is left
 * at the last one, so the next grant, in any process, continues above the block. The counter lives
 * for its ttl after the server's clock has reached it (a counter ahead of the clock lives that much
 * longer), so when it expires the clock is above every token it handed out, and the next token (the
 * clock) continues above them: no counter outlives its leases by more than the retention, and
 * tokens never go backwards as long as the server clock does not step back by more than the ttl.
 */
final class FencingCounter {

    private FencingCounter() {}

    /**
     * {@code fence_set(key, last, floor, ttl)} sets the counter to {@code last} for {@code ttl}
     * ms plus how far {@code last} leads {@code floor} (the clock in µs), in whole ms rounded up.
     * {@code fence_issue(key, reserve, ttl[, clock])} issues {@code reserve} tokens and returns the
     * first and the clock in µs (read with {@code TIME}, or taken from the script's own {@code
     * TIME} reply {@code clock} when given). (Arithmetic on the replies as they are: Lua converts the
     * strings, and this runs per grant.)
     */
    static final String LUA = """
            local function fence_set(key, last, floor, ttl)
              if last > floor then
                local ahead = last - floor + 999
                ttl = ttl + (ahead - ahead % 1000) / 1000
              end
              redis.call('SET', key, string.format('%.0f', last), 'PX', ttl)
            end
            local function fence_clock()
              local now = redis.call('TIME')
              return now[1] * 1000000 + now[2]
            end
            local function fence_issue(key, reserve, ttl, clock)
              local floor = clock and clock[1] * 1000000 + clock[2] or fence_clock()
              local token = (redis.call('GET', key) or 0) + 1
              if token < floor then
                token = floor
              end
              fence_set(key, token + reserve - 1, floor, ttl)
              return token, floor
            end
            """;
}
