package dev.turnstile.redis.internal;

/**
 * The semaphore's Lua scripts. Holders live in a ZSET scored by expiry in the server's
 * milliseconds ({@code TIME}); every script prunes expired permits first, so the count never
 * depends on a client's clock and no interleaving admits more than the limit.
 */
final class SemaphoreScripts {

    private SemaphoreScripts() {}

    static final String NOW = """
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
              return (fence_issue(KEYS[2], reserve, ARGV[4], clock))
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
     * The fair queue's Lua, for scripts whose KEYS are: holders, fence, queue (member = waiter id,
     * a slash and the waiter's lease in ms; score = ticket), alive (the same member, score = the
     * waiter's liveness deadline, server ms), ticket counter; and whose ARGV[2] is the limit, ARGV[7]
     * the release channel and ARGV[8] PUBLISH or SPUBLISH.
     *
     * <p>{@code prune_waiters(now)} drops the waiters whose liveness lapsed (their process stopped
     * calling). {@code hand(now, waiter)} takes the head of the queue out of it and grants it a
     * permit in the holders ZSET that lives only as long as the waiter's liveness: the waiter's next
     * call takes it at its full lease with a fencing token; a waiter that crashed meanwhile frees it
     * by then. {@code signal(count)} publishes one release signal per waiter that left the queue, so
     * a waiter with {@code n} others ahead sleeps through {@code n} signals and wakes at its own.
     */
    static final String QUEUE = """
            local function prune_waiters(now)
              local gone = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, 1000)
              if #gone > 0 then
                redis.call('ZREM', KEYS[3], unpack(gone))
                redis.call('ZREM', KEYS[4], unpack(gone))
              end
              return #gone
            end
            local function hand(now, waiter)
              local alive = tonumber(redis.call('ZSCORE', KEYS[4], waiter))
              redis.call('ZREM', KEYS[3], waiter)
              redis.call('ZREM', KEYS[4], waiter)
              if not alive or alive <= now then return 0 end
              local id = string.match(waiter, '^(.*)/%d+$')
              redis.call('ZADD', KEYS[1], alive, id or waiter)
              if redis.call('PTTL', KEYS[1]) < alive - now then
                redis.call('PEXPIRE', KEYS[1], alive - now)
              end
              return 1
            end
            local function serve(now)
              local left = 0
              local free = tonumber(ARGV[2]) - redis.call('ZCARD', KEYS[1])
              while free > 0 do
                local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
                if not head then break end
                free = free - hand(now, head)
                left = left + 1
              end
              return left
            end
            local function signal(count)
              local told = 0
              for i = 1, count do
                told = redis.call(ARGV[8], ARGV[7], 'free')
              end
              return told
            end
            """;

    /**
     * Fair acquire. KEYS: holders, fence, queue, alive, ticket counter (see {@link #QUEUE}). ARGV:
     * permit id, limit, lease ms, fence ttl ms (lease plus retention), waiter ttl ms, stay queued (1)
     * or leave the queue on failure (0), release channel, PUBLISH or SPUBLISH, tokens to reserve.
     * Returns {@code {1, fencing token, server time ms, waiters left in the queue}} or {@code {0, ms
     * until the first permit expires, waiters ahead in the queue}}.
     *
     * <p>A caller takes a ticket on its first call; each call renews its liveness for the waiter
     * ttl. Free permits go to the head of the queue in ticket order: to the caller when it is the
     * head, else handed to the head (see {@link #QUEUE}). A caller that finds a permit handed to it
     * takes it at its full lease (also a retry of a call whose reply was lost: the grant stands).
     */
    static final LuaScript ACQUIRE_FAIR = LuaScript.of(NOW + GRANT + QUEUE + """
            redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
            if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
              return {1, grant(now, tonumber(ARGV[9])), now, redis.call('ZCARD', KEYS[3])}
            end
            local left = prune_waiters(now)
            local me = ARGV[1] .. '/' .. ARGV[3]
            if not redis.call('ZSCORE', KEYS[3], me) then
              if redis.call('ZCARD', KEYS[3]) == 0 and redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
                signal(left)
                return {1, grant(now, tonumber(ARGV[9])), now, 0}
              end
              redis.call('ZADD', KEYS[3], redis.call('INCR', KEYS[5]), me)
            end
            local ttl = tonumber(ARGV[5])
            redis.call('ZADD', KEYS[4], now + ttl, me)
            for i = 3, 5 do redis.call('PEXPIRE', KEYS[i], ttl) end
            local free = tonumber(ARGV[2]) - redis.call('ZCARD', KEYS[1])
            while free > 0 do
              local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
              if head == me then
                redis.call('ZREM', KEYS[3], me)
                redis.call('ZREM', KEYS[4], me)
                signal(left + 1)
                return {1, grant(now, tonumber(ARGV[9])), now, redis.call('ZCARD', KEYS[3])}
              end
              free = free - hand(now, head)
              left = left + 1
            end
            signal(left)
            local ahead = redis.call('ZRANK', KEYS[3], me)
            if ARGV[6] == '0' then
              redis.call('ZREM', KEYS[3], me)
              redis.call('ZREM', KEYS[4], me)
            end
            return {0, retryHint(now), ahead}
            """);

    /**
     * Fair release. KEYS and ARGV as {@link #ACQUIRE_FAIR} (ARGV[1] the permit id; the lease, fence,
     * waiter ttl and reserve arguments unused). Frees the permit and hands the free permits to the
     * head of the queue, each for as long as its waiter's liveness lasts. Returns {@code {-1 if the
     * permit was not held (or had expired), else the subscribers told; server time ms}}.
     */
    static final LuaScript RELEASE_FAIR = LuaScript.of(NOW + QUEUE + """
            local expiry = redis.call('ZSCORE', KEYS[1], ARGV[1])
            if not expiry then return {-1, now} end
            redis.call('ZREM', KEYS[1], ARGV[1])
            redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
            local told = signal(prune_waiters(now) + serve(now))
            if tonumber(expiry) <= now then told = -1 end
            return {told, now}
            """);

    /**
     * Leaves the fair queue (timeout, interrupt, error). KEYS and ARGV as {@link #ACQUIRE_FAIR} (the
     * permit id and lease ms name the place; the fence, ttl and reserve arguments unused). A
     * permit already handed to the waiter is freed and handed on, so none leaks; the waiters behind
     * are told they moved up.
     */
    static final LuaScript LEAVE_QUEUE = LuaScript.of(NOW + QUEUE + """
            local left = 0
            local me = ARGV[1] .. '/' .. ARGV[3]
            if redis.call('ZREM', KEYS[3], me) == 1 then
              redis.call('ZREM', KEYS[4], me)
              left = 1
            end
            if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
              redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
              left = left + serve(now)
            end
            signal(left)
            return 1
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
            local token = fence_issue(KEYS[2], tonumber(ARGV[4]), ARGV[3], clock)
            return {1, token, now}
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
