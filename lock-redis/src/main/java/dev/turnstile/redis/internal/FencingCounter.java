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
 *
 * <p>What a grant costs the server is mostly the commands it calls from Lua, so an issue takes one
 * in the usual case: the counter is behind the clock (the last grant on the name was more than its
 * block's width of microseconds ago), and one {@code SET … GET} both writes the block above the
 * clock and reads what the counter was. Only when the counter was at or above the clock (a cohort's
 * blocks back to back, a clock stepped back) does a second {@code SET} move the block above it; the
 * script is atomic, so nobody sees the first. {@code SET … GET} needs Redis 6.2: where the server
 * refuses it (Redis 6.0, which Azure Cache for Redis's older tiers run), the refused call changed
 * nothing, and a {@code GET} and a {@code SET} do the same (any other error, a refused command
 * for a restricted user or memory full, is raised by them as {@code redis.call} raises it).
 * Tokens are whole microseconds, far below 2^53, and the counter is written as a string the script
 * builds, for what it costs the server: a number handed to {@code redis.call} is formatted by the
 * server (with {@code %.17g} on Redis 7.0), which costs it about as much as {@code %.0f} in Lua
 * (the counter's ttl for a lock's block comes from the client as text for the same reason). The
 * usual block is the clock's seconds followed by its microseconds plus the reserve as six digits,
 * each taken with {@code %} and written with one {@code string.char}: exact for whole numbers below
 * a million, the same text as {@code %06d} ({@code FencingCounterIntegrationTests} compares them),
 * and no call into the C library's {@code sprintf}. A block that crosses a second, and a block above the counter, are
 * written with {@code %.0f}, exact for whole numbers below 2^53.
 */
final class FencingCounter {

    private FencingCounter() {}

    /**
     * Issues {@code reserve} tokens inline, without a function of its own (a Lua function is a
     * closure made anew by every run of a script; the lock's acquire, the hottest script, pays for
     * none). Expects the locals {@code fence_key}, {@code reserve}, {@code block_ttl} (the counter's
     * ttl for a block of {@code reserve} tokens, {@link #blockTtlMillis}; the lock's acquire passes
     * the client's string, which the server parses for less than it formats a number) and {@code clock} (a {@code TIME} reply, or nil
     * to read the clock); leaves {@code token} (the first of the block) and {@code floor} (the clock
     * in µs). {@link #LUA}'s {@code fence_issue} is the same code.
     */
    static final String ISSUE = """
            local now = clock or redis.call('TIME')
            local floor = now[1] * 1000000 + now[2]
            local token = floor
            local last_micros = now[2] + reserve - 1
            local block
            if last_micros < 1000000 then
              local m = last_micros
              local d0 = m % 10
              m = (m - d0) / 10
              local d1 = m % 10
              m = (m - d1) / 10
              local d2 = m % 10
              m = (m - d2) / 10
              local d3 = m % 10
              m = (m - d3) / 10
              local d4 = m % 10
              m = (m - d4) / 10
              block = now[1] .. string.char(48 + m, 48 + d4, 48 + d3, 48 + d2, 48 + d1, 48 + d0)
            else
              block = string.format('%.0f', floor + reserve - 1)
            end
            local was = redis.pcall('SET', fence_key, block, 'PX', block_ttl, 'GET')
            if type(was) == 'table' then
              was = redis.call('GET', fence_key)
              redis.call('SET', fence_key, block, 'PX', block_ttl)
            end
            if was and was + 1 > floor then
              token = was + 1
              redis.call('SET', fence_key, string.format('%.0f', token + reserve - 1), 'PX',
                block_ttl - math.ceil((reserve - 1) / 1000) + math.ceil((token + reserve - 1 - floor) / 1000))
            end
            """;

    /**
     * The counter's ttl in ms for a block of {@code reserve} tokens issued on the clock: {@code
     * ttlMillis} (lease plus retention) after the clock has passed the block's last token, in
     * whole ms rounded up, as {@link #ISSUE} expects it.
     */
    static String blockTtlMillis(long ttlMillis, int reserve) {
        return Long.toString(ttlMillis + (reserve - 1 + 999) / 1000);
    }

    /**
     * {@code fence_set(key, last, floor, ttl)} sets the counter to {@code last} for {@code ttl}
     * ms plus how far {@code last} leads {@code floor} (the clock in µs), in whole ms rounded up.
     * {@code fence_issue(fence_key, reserve, ttl[, clock])} issues {@code reserve} tokens for a
     * counter ttl of {@code ttl} ms ({@link
     * #ISSUE}) and returns the first and the clock in µs (read with {@code TIME}, or taken from the
     * script's own {@code TIME} reply {@code clock} when given). (Arithmetic on the replies as they
     * are: Lua converts the strings, and this runs per grant.)
     */
    static final String LUA = """
            local function fence_set(key, last, floor, ttl)
              if last > floor then
                ttl = ttl + math.ceil((last - floor) / 1000)
              end
              redis.call('SET', key, string.format('%.0f', last), 'PX', ttl)
            end
            local function fence_clock()
              local now = redis.call('TIME')
              return now[1] * 1000000 + now[2]
            end
            local function fence_issue(fence_key, reserve, ttl, clock)
              local block_ttl = ttl + math.ceil((reserve - 1) / 1000)
            """ + ISSUE + """
              return token, floor
            end
            """;
}
