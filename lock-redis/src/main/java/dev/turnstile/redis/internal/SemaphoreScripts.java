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
    private static final String QUEUE = """
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
     * One process's waiters of a fair semaphore, in one call ({@code FairPermitQueue}). KEYS as
     * {@link #ACQUIRE_FAIR}. ARGV: [1] the process's owner prefix (every member of this process
     * starts with it), [2] limit, [3] fence ttl ms, [4] waiter ttl ms, [5] how many members leave,
     * [6] how many arrive, [7] release channel, [8] PUBLISH or SPUBLISH (where {@link #QUEUE} reads
     * them), [9] how many wait on, [10] what to look for: 0 nothing, 1 permits handed to the
     * members (a release signal came since the last call, or a call's answer was lost), 2 those and
     * the places that lapsed (the process made no call for a good part of the waiter ttl: such a
     * member queues again, at the back, with a new ticket and token); then the members (waiter id, a slash, its lease in ms) that leave (served in the process, or
     * gave up), those that arrive and those that still wait.
     *
     * <p>In this order: the members that leave are taken out of the queue, and a permit handed or
     * granted to one is freed; when asked, a permit handed to a member (or granted to it by a call
     * whose answer was lost) is taken at its full lease; the arrivals take consecutive
     * tickets and, in the same order, one fencing token each (the token it holds with, whether Redis
     * grants its permit or one passes to it in the process: so tokens follow tickets, and with one
     * permit they increase in hold order); every member still waiting has its liveness renewed;
     * free permits go to the head of the queue in ticket order: to a member of this call, granted at
     * its lease, or handed to another process's waiter.
     *
     * <p>Returns {@code {server ms, bound, first token, n, then n pairs (member, ticket) of the
     * members queued by this call in ticket order (the i-th holds token first + i), then each member
     * granted}}. The bound is the lowest ticket another
     * process's waiter has (or the next ticket when none queues): a permit may pass in the process
     * to a waiter whose ticket is below it, since every waiter ahead of it is of this process and
     * every later waiter anywhere gets a higher ticket. As in every fair script, one signal is
     * published per waiter that left the queue, so that another process's waiter sleeps through
     * those ahead of it.
     */
    static final LuaScript SYNC_FAIR = LuaScript.of(NOW + FencingCounter.LUA + QUEUE + """
            redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
            local told = prune_waiters(now)
            local nLeave, nNew, nWait = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[9])
            local firstNew, firstWait, last = 11 + nLeave, 11 + nLeave + nNew, 10 + nLeave + nNew + nWait
            local function id_of(member) return string.match(member, '^(.*)/%d+$') or member end
            -- One command per key for many members, in slices that unpack can take.
            local function each_slice(command, key, values)
              local count = 0
              for from = 1, #values, 4000 do
                count = count + redis.call(command, key, unpack(values, from, math.min(from + 3999, #values)))
              end
              return count
            end
            if nLeave > 0 then
              local members, ids = {}, {}
              for i = 11, firstNew - 1 do
                members[#members + 1] = ARGV[i]
                ids[#ids + 1] = id_of(ARGV[i])
              end
              told = told + each_slice('ZREM', KEYS[3], members)
              each_slice('ZREM', KEYS[4], members)
              each_slice('ZREM', KEYS[1], ids)
            end
            local mine, grants = {}, {}
            local function grant_to(member)
              local lease = tonumber(string.match(member, '/(%d+)$'))
              redis.call('ZADD', KEYS[1], now + lease, id_of(member))
              if redis.call('PTTL', KEYS[1]) < lease then redis.call('PEXPIRE', KEYS[1], lease) end
              grants[#grants + 1] = member
              mine[member] = nil
            end
            local arrivals = {}
            for i = firstNew, last do
              mine[ARGV[i]] = true
              if ARGV[10] ~= '0' and redis.call('ZSCORE', KEYS[1], id_of(ARGV[i])) then
                grant_to(ARGV[i])
              elseif i < firstWait then
                arrivals[#arrivals + 1] = ARGV[i]
              elseif ARGV[10] == '2' and not redis.call('ZSCORE', KEYS[3], ARGV[i]) then
                arrivals[#arrivals + 1] = ARGV[i] -- its place lapsed: it queues again, at the back
              end
            end
            local reply = {now, 0, 0, 0}
            if #arrivals > 0 then
              local ticket = tonumber(redis.call('GET', KEYS[5]) or 0)
              redis.call('SET', KEYS[5], ticket + #arrivals, 'PX', ARGV[4])
              local tickets = {}
              for i = 1, #arrivals do
                tickets[#tickets + 1] = ticket + i
                tickets[#tickets + 1] = arrivals[i]
                reply[#reply + 1] = arrivals[i]
                reply[#reply + 1] = ticket + i
              end
              each_slice('ZADD', KEYS[3], tickets)
              reply[3] = (fence_issue(KEYS[2], #arrivals, ARGV[3]))
              reply[4] = #arrivals
            end
            local ttl = tonumber(ARGV[4])
            local alive = {}
            for member in pairs(mine) do
              alive[#alive + 1] = now + ttl
              alive[#alive + 1] = member
            end
            if #alive > 0 then
              each_slice('ZADD', KEYS[4], alive)
              for i = 3, 5 do redis.call('PEXPIRE', KEYS[i], ttl) end
            end
            local free = tonumber(ARGV[2]) - redis.call('ZCARD', KEYS[1])
            while free > 0 do
              local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
              if not head then break end
              if mine[head] then
                redis.call('ZREM', KEYS[3], head)
                redis.call('ZREM', KEYS[4], head)
                grant_to(head)
                free = free - 1
              else
                free = free - hand(now, head)
              end
              told = told + 1
            end
            signal(told)
            reply[2] = (tonumber(redis.call('GET', KEYS[5])) or 0) + 1
            local queued = redis.call('ZRANGE', KEYS[3], 0, 63, 'WITHSCORES')
            for i = 1, #queued, 2 do
              if string.sub(queued[i], 1, #ARGV[1]) ~= ARGV[1] or i == 127 then
                reply[2] = tonumber(queued[i + 1])
                break
              end
            end
            for i = 1, #grants do reply[#reply + 1] = grants[i] end
            return reply
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
            local token = fence_issue(KEYS[2], tonumber(ARGV[4]), ARGV[3])
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
