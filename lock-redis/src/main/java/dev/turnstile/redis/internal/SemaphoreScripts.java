package dev.turnstile.redis.internal;

/**
 * The semaphore's Lua scripts. Holders live in a ZSET scored by expiry in the server's
 * milliseconds ({@code TIME}); every script prunes expired permits first, so the count never
 * depends on a client's clock and no interleaving admits more than the limit.
 */
final class SemaphoreScripts {

    private SemaphoreScripts() {}

    private static final String NOW = """
            local clock = redis.call('TIME')
            local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
            """;

    /**
     * Grants a permit: adds the holder, keeps the ZSET's TTL at its latest expiry, issues a fencing
     * token and reserves the {@code reserve - 1} after it for the holders the permit may pass to in
     * the holder's process (the counter is left at the last one reserved).
     */
    private static final String GRANT = FencingCounter.LUA + """
            local function grant(now, reserve)
              local expiry = now + tonumber(ARGV[3])
              redis.call('ZADD', KEYS[1], expiry, ARGV[1])
              if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then
                redis.call('PEXPIRE', KEYS[1], ARGV[3])
              end
              return (fence_issue(KEYS[2], reserve, ARGV[4]))
            end
            local function retryHint(now)
              local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
              if first[2] then return tonumber(first[2]) - now end
              return 0
            end
            """;

    /**
     * KEYS: holders, fence. ARGV: permit id, limit, lease ms, fence ttl ms (lease plus retention),
     * tokens to reserve (1 or more). Returns {@code {1, fencing token, server time ms}} or {@code {0,
     * ms until the first permit expires}}.
     */
    static final LuaScript ACQUIRE = LuaScript.of(NOW + GRANT + """
            redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
            -- A retry of a call whose reply was lost finds its own permit: the grant stands.
            if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
              return {1, grant(now, tonumber(ARGV[5])), now}
            end
            return {0, retryHint(now)}
            """);

    /**
     * Fair acquire. KEYS: holders, fence, queue (score = ticket), alive (score = waiter expiry),
     * ticket counter. ARGV: permit id, limit, lease ms, fence ttl ms (lease plus retention), waiter ttl ms, stay
     * queued (1) or leave the queue on failure (0), release channel, PUBLISH or SPUBLISH, tokens to
     * reserve. Returns {@code {1, fencing token, server time ms, waiters left in the queue}} or {@code
     * {0, ms until the first permit expires, release signals that cannot serve this waiter yet}}.
     *
     * <p>A caller takes a ticket on its first call and keeps its place while it keeps calling (each
     * call refreshes its liveness); waiters that stopped calling (crashed) are pruned after the
     * waiter ttl. Only the head of the queue may take a free permit, so grants follow ticket order.
     */
    static final LuaScript ACQUIRE_FAIR = LuaScript.of(NOW + GRANT + """
            redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
            if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
              return {1, grant(now, tonumber(ARGV[9])), now, redis.call('ZCARD', KEYS[3])}
            end
            local gone = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, 1000)
            if #gone > 0 then
              redis.call('ZREM', KEYS[3], unpack(gone))
              redis.call('ZREM', KEYS[4], unpack(gone))
              -- Waiters behind the crashed ones may now be at the head.
              redis.call(ARGV[8], ARGV[7], 'free')
            end
            if not redis.call('ZSCORE', KEYS[3], ARGV[1]) then
              redis.call('ZADD', KEYS[3], redis.call('INCR', KEYS[5]), ARGV[1])
            end
            local ttl = tonumber(ARGV[5])
            redis.call('ZADD', KEYS[4], now + ttl, ARGV[1])
            for i = 3, 5 do redis.call('PEXPIRE', KEYS[i], ttl) end
            local free = tonumber(ARGV[2]) - redis.call('ZCARD', KEYS[1])
            if free > 0 and redis.call('ZRANK', KEYS[3], ARGV[1]) == 0 then
              redis.call('ZREM', KEYS[3], ARGV[1])
              redis.call('ZREM', KEYS[4], ARGV[1])
              local token = grant(now, tonumber(ARGV[9]))
              local queued = redis.call('ZCARD', KEYS[3])
              if free > 1 and queued > 0 then
                redis.call(ARGV[8], ARGV[7], 'free')
              end
              return {1, token, now, queued}
            end
            -- Releases that must happen before this waiter can be served: one per waiter ahead that
            -- finds no free permit, plus one for itself. The waiter sleeps through fewer signals.
            local ahead = redis.call('ZRANK', KEYS[3], ARGV[1])
            local skip = math.max(0, ahead - math.max(free, 0))
            if ARGV[6] == '0' then
              redis.call('ZREM', KEYS[3], ARGV[1])
              redis.call('ZREM', KEYS[4], ARGV[1])
            end
            return {0, retryHint(now), skip}
            """);

    /**
     * Renews a held permit and reserves fresh fencing tokens for the holders of this process it
     * passes to: used when the tokens reserved before are used up or older than the next waiter.
     * Only an unfair semaphore passes permits on. KEYS: holders, fence. ARGV: permit id, lease ms,
     * fence ttl ms, tokens to reserve. Returns {@code {1, first token, server time ms}}, or {@code
     * {0}} if the permit is no longer held (never re-adds one that expired).
     */
    static final LuaScript RESERVE = LuaScript.of(NOW + FencingCounter.LUA + """
            local expiry = redis.call('ZSCORE', KEYS[1], ARGV[1])
            if not expiry or tonumber(expiry) <= now then return {0} end
            redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
            if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
              redis.call('PEXPIRE', KEYS[1], ARGV[2])
            end
            local token = fence_issue(KEYS[2], tonumber(ARGV[4]), ARGV[3])
            return {1, token, now}
            """);

    /**
     * KEYS: queue, alive. ARGV: permit id, release channel, PUBLISH or SPUBLISH. Leaves the fair queue (timeout,
     * interrupt, error) and wakes the waiters behind, who may now be at the head.
     */
    static final LuaScript LEAVE_QUEUE = LuaScript.of("""
            if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
              redis.call('ZREM', KEYS[2], ARGV[1])
              if redis.call('ZCARD', KEYS[1]) > 0 then
                redis.call(ARGV[3], ARGV[2], 'free')
              end
            end
            return 1
            """);

    /**
     * KEYS: holders. ARGV: permit id, release channel, PUBLISH or SPUBLISH. Returns -1 if the permit was not held (or had
     * expired), else the number of subscribers told.
     */
    static final LuaScript RELEASE = LuaScript.of(NOW + """
            local expiry = redis.call('ZSCORE', KEYS[1], ARGV[1])
            if not expiry then return -1 end
            redis.call('ZREM', KEYS[1], ARGV[1])
            if tonumber(expiry) <= now then return -1 end
            return redis.call(ARGV[3], ARGV[2], 'free')
            """);

    /**
     * KEYS: holders. ARGV: permit id, release channel, PUBLISH or SPUBLISH, grant time (server ms),
     * hold ms. Like {@link #RELEASE}, but while less than the hold has passed since the grant (by
     * the server's clock) the permit is kept, to expire when it has: returns -1 if not held, 0 if
     * kept, else the number of subscribers told.
     */
    static final LuaScript RELEASE_AFTER = LuaScript.of(NOW + """
            local expiry = redis.call('ZSCORE', KEYS[1], ARGV[1])
            if not expiry or tonumber(expiry) <= now then
              redis.call('ZREM', KEYS[1], ARGV[1])
              return -1
            end
            local left = tonumber(ARGV[4]) + tonumber(ARGV[5]) - now
            if left > 0 then
              redis.call('ZADD', KEYS[1], 'XX', now + left, ARGV[1])
              if redis.call('PTTL', KEYS[1]) < left then
                redis.call('PEXPIRE', KEYS[1], left)
              end
              return 0
            end
            redis.call('ZREM', KEYS[1], ARGV[1])
            return redis.call(ARGV[3], ARGV[2], 'free')
            """);

    /**
     * KEYS: holders. ARGV: permit id, lease ms. Returns 1 renewed, 0 gone (never re-adds a permit
     * that expired: its slot may already be someone else's).
     */
    static final LuaScript RENEW = LuaScript.of(NOW + """
            local expiry = redis.call('ZSCORE', KEYS[1], ARGV[1])
            if not expiry then return 0 end
            if tonumber(expiry) <= now then
              redis.call('ZREM', KEYS[1], ARGV[1])
              return 0
            end
            redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
            if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
              redis.call('PEXPIRE', KEYS[1], ARGV[2])
            end
            return 1
            """);

    /**
     * KEYS: holders. Prunes expired permits and returns {@code {server now ms, id1, expiry1, ...}}.
     */
    static final LuaScript HOLDERS = LuaScript.of(NOW + """
            redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
            local holders = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
            table.insert(holders, 1, tostring(now))
            return holders
            """);
}
