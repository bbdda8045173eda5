package dev.turnstile.redis.internal;

import java.util.List;

/**
 * The lock's Lua scripts. Time comes from the server ({@code TIME}), never from a client; the one
 * value a client brings is the fencing token Redlock proposes, which a master takes only above its
 * counter.
 */
final class LockScripts {

    private LockScripts() {}

    /**
     * Marks the value of lock KEYS[1], held by {@code holder} (not this caller), as wanted: a refused
     * acquire appends {@link RedisKeys#WANTED} to the owner token (keeping the key's expiry), once.
     * The mark tells the holder's release to publish (someone waits) and its cohort not to reserve
     * another block ({@link #REFILL}). A forced release's placeholder is left alone: it expires, and
     * nobody releases it.
     */
    private static final String MARK_WANTED =
            """
            if string.byte(holder, -1) ~= %d and holder ~= '%s' then
              redis.call('SET', KEYS[1], holder .. '%s', 'KEEPTTL')
            end
            """.formatted((int) RedisKeys.WANTED.charAt(0), RedisKeys.FORCE_RELEASED, RedisKeys.WANTED);

    /**
     * KEYS: lock, fence. ARGV: owner token (marked as wanted when the caller waits already: the grant
     * is then born marked, see {@code RedisLock}), lease ms, the counter's ttl ms for the block ({@link
     * FencingCounter#blockTtlMillis} of lease plus retention), tokens to reserve (the default
     * cohort's {@link TurnstileOptions#DEFAULT_COHORT_HOLDERS} if absent: a process with the default
     * sends one string fewer, and each string a call hands a script costs the server about as much as
     * a small command). Returns the fencing token alone when acquired with a token equal to the
     * server's clock in µs (the usual case: the server time in ms is the token divided by 1000),
     * {@code {1, fencing token, server time ms}} when acquired with a token above the clock, else
     * {@code {0, pttl of the holder}}, and then marks the holder's value as wanted ({@link
     * #MARK_WANTED}): its release tells the waiters, and its cohort sees that someone else wants the
     * lock. The counter is left at the last reserved token: the holders of a cohort use the block in
     * order, and the next grant continues above it. ({@link Acquired#of} reads the reply; a lone
     * integer costs the server less to send than an array.)
     *
     * <p>The lock key is created with its TTL in one command, so it can never exist without one.
     * The fencing token and the counter's life are {@link FencingCounter}'s, inline: this is the
     * script every uncontended acquire runs.
     *
     * <p>A client that retries the call (Jedis's cluster client does after a timeout) and finds the
     * key already holding its own token, marked or not, gets the grant, with a new fencing token, not
     * "busy".
     */
    static final LuaScript ACQUIRE = LuaScript.of(
            """
            local call = redis.call
            if not call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
              -- A retry of a call whose reply was lost finds its own grant: treat it as a new grant.
              local holder = call('GET', KEYS[1])
              if holder ~= ARGV[1] and holder ~= ARGV[1] .. '%s' then
            """.formatted(RedisKeys.WANTED) + MARK_WANTED + """
                return {0, call('PTTL', KEYS[1])}
              end
              call('PEXPIRE', KEYS[1], ARGV[2])
            end
            local fence_key, reserve, block_ttl, clock = KEYS[2], ARGV[4] or %d, ARGV[3], nil
            """.formatted(TurnstileOptions.DEFAULT_COHORT_HOLDERS)
                    + FencingCounter.ISSUE + """
            if token == floor then
              return token
            end
            return {1, token, (floor - floor % 1000) / 1000}
            """);

    /**
     * An {@link #ACQUIRE} reply, read.
     *
     * @param granted whether the lock was acquired
     * @param value the fencing token when granted, else the holder's pttl in ms
     * @param serverMillis the server's time of the grant in ms (0 when refused)
     */
    record Acquired(boolean granted, long value, long serverMillis) {

        /** Reads {@code reply}: a lone token (the server's clock in µs) or a list. */
        static Acquired of(Object reply) {
            if (reply instanceof Long token) {
                return new Acquired(true, token, token / 1000);
            }
            List<?> list = (List<?>) reply;
            boolean granted = (Long) list.get(0) == 1;
            return new Acquired(granted, (Long) list.get(1), granted ? (Long) list.get(2) : 0);
        }
    }

    /**
     * Redlock's acquire on one master. KEYS: lock, fence. ARGV: owner token, lease ms, counter ttl
     * ms, the proposed fencing token, how far below this master's clock (µs) a proposal may be when
     * it has no counter. Every master of a round is given the same proposal, and a master grants only
     * with it: so the token is on every granting master, and any later majority, which shares a
     * master with this one, must propose above it.
     *
     * <p>A master takes the proposal if it is above its counter, or, with no counter, not more than
     * the allowance below its clock. A counter lives for its ttl plus the allowance plus 1 ms after
     * the clock has passed it ({@link FencingCounter}), so once it has expired the clock minus the
     * allowance is above every token it took by the counter's ttl, as on one server: a master's clock
     * must step back by more than the counter's ttl before a lower token can get in. Returns {@code {1, token, server time
     * ms}} when granted, {@code {0, pttl}} when held by another owner (whose value it marks as wanted,
     * as {@link #ACQUIRE} does; a grant to the owner itself keeps the mark), {@code {2, least}} when the
     * proposal is too low, with the least this master would take. A master with no counter then
     * records that least as its counter (less one), so the least it named is still taken in the next
     * round however far its clock has moved meanwhile: a client's clock may be behind the master's by
     * any amount and get a token in two rounds.
     */
    static final LuaScript REDLOCK_ACQUIRE =
            LuaScript.of(FencingCounter.LUA + """
            local call = redis.call
            local holder = call('GET', KEYS[1])
            if holder and holder ~= ARGV[1] and holder ~= ARGV[1] .. '%s' then
            """.formatted(RedisKeys.WANTED) + MARK_WANTED + """
              return {0, call('PTTL', KEYS[1])}
            end
            local floor = fence_clock()
            local allowance = tonumber(ARGV[5])
            local ttl = tonumber(ARGV[3]) + (allowance - allowance % 1000) / 1000 + 1
            local counter = call('GET', KEYS[2])
            local least = counter and counter + 1 or floor - allowance
            local token = tonumber(ARGV[4])
            if token < least then
              if not counter then
                fence_set(KEYS[2], least - 1, floor, ttl)
              end
              return {2, least}
            end
            call('SET', KEYS[1], holder or ARGV[1], 'PX', ARGV[2])
            fence_set(KEYS[2], token, floor, ttl)
            return {1, token, (floor - floor % 1000) / 1000}
            """);

    /**
     * Publishes a release on {@code channel} with {@code publish} (PUBLISH or SPUBLISH) and sets
     * {@code told} to the waiters told: the clients subscribed to the channel itself. (A Redis user
     * that may not run {@code PUBSUB NUMSUB} gets PUBLISH's count, pattern subscribers included; the
     * release itself never fails for it.)
     */
    private static final String TELL_WAITERS = """
            local told = redis.call(publish, channel, 'free')
            if told > 0 and publish == 'PUBLISH' then
              local subscribed = redis.pcall('PUBSUB', 'NUMSUB', channel)
              if type(subscribed) == 'table' and subscribed[2] then
                told = subscribed[2]
              end
            end
            """;

    /**
     * Answers -2 and returns when KEYS[2] (the forced-release marker, if given) holds this owner's
     * token ARGV[1]: an operator took the lock from this owner.
     */
    private static final String FORCED_FROM_OWNER = """
            if KEYS[2] and redis.call('GET', KEYS[2]) == ARGV[1] then
              return -2
            end
            """;

    /**
     * KEYS: lock. ARGV: owner token, SPUBLISH (optional: PUBLISH). Deletes the lock only if this
     * owner holds it. Returns -1 if not the owner, else the number of waiters told: 0 when no acquire
     * was refused while this owner held the lock (its value is unmarked: nobody in another process
     * waits for it, and nothing is published), else the clients subscribed to the lock's channel,
     * which is the lock key itself (a client subscribed to a pattern, such as a monitoring tool's
     * {@code PSUBSCRIBE *}, waits for no lock, though {@code PUBLISH} counts it).
     *
     * <p>It takes no more than a release needs: each string a call hands a script costs the server
     * about as much as a small command, and this script runs once per lock held. Whether a forced
     * release took the lock is asked of the marker only after a -1 ({@link LockGrant#release}).
     */
    static final LuaScript RELEASE = LuaScript.of("""
            local holder = redis.call('GET', KEYS[1])
            if holder == ARGV[1] then
              redis.call('DEL', KEYS[1])
              return 0
            end
            if holder == ARGV[1] .. '%s' then
              redis.call('DEL', KEYS[1])
              local publish, channel = ARGV[2] or 'PUBLISH', KEYS[1]
            """.formatted(RedisKeys.WANTED) + TELL_WAITERS + """
              return told
            end
            return -1
            """);

    /** Sets {@code holder} to lock KEYS[1]'s value and whether it is owner ARGV[1]'s, marked or not. */
    private static final String HOLDER = """
            local holder = redis.call('GET', KEYS[1])
            local owned = holder == ARGV[1] or holder == ARGV[1] .. '%s'
            """.formatted(RedisKeys.WANTED);

    /**
     * KEYS: lock, forced-release marker (optional). ARGV: owner token, release channel (the lock
     * key), PUBLISH or SPUBLISH, grant time (server ms), hold ms. Like {@link #RELEASE}, but while less than the hold
     * has passed since the grant (by the server's clock) the lock is kept and set to expire when it
     * has: returns -1 if not the owner (-2 if a forced release took it from this owner), 0 if kept,
     * else the number of waiters told (as {@link #RELEASE} counts them).
     */
    static final LuaScript RELEASE_AFTER = LuaScript.of(HOLDER + """
            if not owned then
            """ + FORCED_FROM_OWNER + """
              return -1
            end
            local now = redis.call('TIME')
            local left = tonumber(ARGV[4]) + tonumber(ARGV[5]) - (tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000))
            if left > 0 then
              redis.call('PEXPIRE', KEYS[1], left)
              return 0
            end
            redis.call('DEL', KEYS[1])
            local publish, channel = ARGV[3], ARGV[2]
            """ + TELL_WAITERS + """
            return told
            """);

    /**
     * KEYS: lock, forced-release marker (optional). ARGV: release channel, PUBLISH or SPUBLISH,
     * hold-off ms (absent: none). Takes the lock from whoever holds it, and tells waiters. The marker
     * keeps the owner's token (without the {@link RedisKeys#WANTED} mark) for what was left of its
     * lease, so that its renewal or release can tell a forced release from an expiry. With a hold-off (the lock cohort's longest age)
     * the key is set to {@code force-released} for that long instead of deleted: a cohort in the
     * holder's process may still pass the grant on locally until its age runs out, and nobody else
     * can take the lock before then, so no holder of another process overlaps those hand-offs or gets
     * a token they would undercut. Redlock, which has no cohort, deletes. Returns 1 if the lock was
     * held, else 0.
     */
    static final LuaScript FORCE_RELEASE = LuaScript.of("""
            local holder = redis.call('GET', KEYS[1])
            if holder and holder ~= 'force-released' then
              local left = redis.call('PTTL', KEYS[1])
              if string.byte(holder, -1) == %d then
                holder = string.sub(holder, 1, -2)
              end
              if KEYS[2] and left > 0 then
                redis.call('SET', KEYS[2], holder, 'PX', left)
              end
              if ARGV[3] then
                redis.call('SET', KEYS[1], 'force-released', 'PX', ARGV[3])
              else
                redis.call('DEL', KEYS[1])
              end
              redis.call(ARGV[2], ARGV[1], 'free')
              return 1
            end
            return 0
            """.formatted((int) RedisKeys.WANTED.charAt(0)));

    /**
     * Reserves a lock cohort's next block. KEYS: lock, fence. ARGV: owner token, counter ttl ms
     * (lease plus retention), tokens to reserve, release channel (the lock key). Only while this
     * owner holds the lock with its value unmarked (no acquire was refused since the grant: {@link
     * #ACQUIRE} marks the value, so a client that polls, a zero-wait try or a Redis user without
     * pub/sub, is seen) and no client is subscribed to its release channel (nobody waits for a
     * signal; a Redis user that may not run {@code PUBSUB NUMSUB} never refills): reserves the
     * tokens. The key's expiry is left alone: the holders' renewals, top-ups and releases (a release
     * with a hold among them) decide it, and no holder counts on a refill to keep the key. Returns
     * {@code {1, first token, server time ms}}, or {@code {0}} when refused.
     */
    static final LuaScript REFILL = LuaScript.of(FencingCounter.LUA + """
            local call = redis.call
            if call('GET', KEYS[1]) ~= ARGV[1] then
              return {0}
            end
            local waiting = redis.pcall('PUBSUB', 'NUMSUB', ARGV[4])
            if type(waiting) ~= 'table' or waiting[2] ~= 0 then
              return {0}
            end
            local token, floor = fence_issue(KEYS[2], tonumber(ARGV[3]), ARGV[2])
            return {1, token, (floor - floor % 1000) / 1000}
            """);

    /**
     * KEYS: lock, forced-release marker (optional). ARGV: owner token, lease ms. Sets the TTL only
     * if this owner holds the lock (its value marked as wanted or not); never re-creates it. Returns
     * 1 renewed, 0 gone, -1 held by another owner, -2 taken from this owner by a forced release.
     */
    static final LuaScript RENEW = LuaScript.of(HOLDER + """
            if owned then
              redis.call('PEXPIRE', KEYS[1], ARGV[2])
              return 1
            end
            """ + FORCED_FROM_OWNER + """
            if holder then
              return -1
            end
            return 0
            """);
}
