package dev.turnstile.redis.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One call a {@link FairPermitQueue} makes for all its waiters ({@link #SCRIPT}) and its answer.
 *
 * @param leaving the members that leave Redis's queue (served in the process, or gave up)
 * @param arriving the members that take a ticket
 * @param waiting the members that still wait with a ticket
 * @param look what else to look for: 0 nothing, 1 permits handed to the members, 2 those and the
 *     places that lapsed (see the script)
 * @param longestLease the longest lease among the members, for the fencing counter's ttl
 */
record FairQueueCall(
        List<String> leaving, List<String> arriving, List<String> waiting, String look, Duration longestLease) {

    /**
     * One process's waiters of a fair semaphore, in one call ({@code FairPermitQueue}). KEYS as
     * {@link SemaphoreScripts#ACQUIRE_FAIR}. ARGV: [1] the process's owner prefix (every member of this process
     * starts with it), [2] limit, [3] fence ttl ms, [4] waiter ttl ms, [5] how many members leave,
     * [6] how many arrive, [7] release channel, [8] PUBLISH or SPUBLISH (where {@link SemaphoreScripts#QUEUE} reads
     * them), [9] how many wait on, [10] what to look for: 0 nothing, 1 permits handed to the
     * members (a release signal came since the last call, or a call's answer was lost) and the
     * lapsed places of any process, to prune (every release prunes them too), 2 those and
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
     * granted}}. An arrival found holding (granted by a call whose answer was lost, before it had a
     * token) gives that permit back and queues again, so that tokens keep following tickets. The queue key is given twice the waiter ttl whenever this call adds to it. The bound is the lowest ticket another
     * process's waiter has (or the next ticket when none queues): a permit may pass in the process
     * to a waiter whose ticket is below it, since every waiter ahead of it is of this process and
     * every later waiter anywhere gets a higher ticket. As in every fair script, one signal is
     * published per waiter that left the queue, so that another process's waiter sleeps through
     * those ahead of it; the members of this process that leave are told only when another process's
     * waiter queues (nobody else counts them). Holders are read in one {@code ZRANGE} when there are
     * no more of them than members to look for; the queue keys are renewed to twice the waiter ttl
     * when less than the ttl is left.
     */
    static final LuaScript SCRIPT =
            LuaScript.of(SemaphoreScripts.NOW + FencingCounter.LUA + SemaphoreScripts.QUEUE + """
            redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
            -- Lapsed places are pruned when asked to look (at least every keep-alive), and by every release.
            local told = ARGV[10] ~= '0' and prune_waiters(now) or 0
            local nLeave, nNew, nWait = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[9])
            local firstNew, firstWait, last = 11 + nLeave, 11 + nLeave + nNew, 10 + nLeave + nNew + nWait
            local ttl = tonumber(ARGV[4])
            local function id_of(member) return string.match(member, '^(.*)/%d+$') or member end
            -- One command per key for many members, in slices that unpack can take.
            local function each_slice(command, key, values)
              local count = 0
              for from = 1, #values, 4000 do
                count = count + redis.call(command, key, unpack(values, from, math.min(from + 3999, #values)))
              end
              return count
            end
            local left = 0
            if nLeave > 0 then
              local members, ids = {}, {}
              for i = 11, firstNew - 1 do
                members[#members + 1] = ARGV[i]
                ids[#ids + 1] = id_of(ARGV[i])
              end
              left = each_slice('ZREM', KEYS[3], members)
              each_slice('ZREM', KEYS[4], members)
              each_slice('ZREM', KEYS[1], ids)
            end
            local held = redis.call('ZCARD', KEYS[1])
            -- Who holds, read once when that is cheaper than asking for each member.
            local holders
            if ARGV[10] ~= '0' and held <= nNew + nWait then
              holders = {}
              for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do holders[id] = true end
            end
            local function holds(member)
              if holders then return holders[id_of(member)] end
              return redis.call('ZSCORE', KEYS[1], id_of(member))
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
              if i < firstWait and ARGV[10] ~= '0' and holds(ARGV[i]) then
                -- Granted by a call whose answer was lost, with no token in ticket order for it:
                -- it gives the permit back and queues again, at the back.
                redis.call('ZREM', KEYS[1], id_of(ARGV[i]))
                held = held - 1
                arrivals[#arrivals + 1] = ARGV[i]
              elseif ARGV[10] ~= '0' and holds(ARGV[i]) then
                grant_to(ARGV[i]) -- already counted in held
              elseif i < firstWait then
                arrivals[#arrivals + 1] = ARGV[i]
              elseif ARGV[10] == '2' and not redis.call('ZSCORE', KEYS[3], ARGV[i]) then
                arrivals[#arrivals + 1] = ARGV[i] -- its place lapsed: it queues again, at the back
              end
            end
            local reply = {now, 0, 0, 0}
            local issued
            if #arrivals > 0 then
              local ticket = tonumber(redis.call('GET', KEYS[5]) or 0)
              issued = ticket + #arrivals
              redis.call('SET', KEYS[5], issued, 'PX', 2 * ttl)
              local tickets = {}
              for i = 1, #arrivals do
                tickets[#tickets + 1] = ticket + i
                tickets[#tickets + 1] = arrivals[i]
                reply[#reply + 1] = arrivals[i]
                reply[#reply + 1] = ticket + i
              end
              each_slice('ZADD', KEYS[3], tickets)
              redis.call('PEXPIRE', KEYS[3], 2 * ttl)
              reply[3] = (fence_issue(KEYS[2], #arrivals, ARGV[3], clock))
              reply[4] = #arrivals
            end
            local alive = {}
            for member in pairs(mine) do
              alive[#alive + 1] = now + ttl
              alive[#alive + 1] = member
            end
            if #alive > 0 then
              each_slice('ZADD', KEYS[4], alive)
              -- The keys outlive every liveness by at least the ttl: renewed to twice it when less is left.
              if redis.call('PTTL', KEYS[4]) < ttl then
                for i = 3, 5 do redis.call('PEXPIRE', KEYS[i], 2 * ttl) end
              end
            end
            local free = tonumber(ARGV[2]) - held
            while free > 0 do
              local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
              if not head then break end
              if mine[head] then
                redis.call('ZREM', KEYS[3], head)
                redis.call('ZREM', KEYS[4], head)
                grant_to(head)
                free = free - 1
                left = left + 1
              else
                free = free - hand(now, head)
                told = told + 1
              end
            end
            reply[2] = (issued or tonumber(redis.call('GET', KEYS[5])) or 0) + 1
            local others = false
            local queued = redis.call('ZRANGE', KEYS[3], 0, 63, 'WITHSCORES')
            for i = 1, #queued, 2 do
              if string.sub(queued[i], 1, #ARGV[1]) ~= ARGV[1] or i == 127 then
                reply[2] = tonumber(queued[i + 1])
                others = true
                break
              end
            end
            -- Those who left were ahead of every other process's waiter: told only if one queues.
            if others then told = told + left end
            signal(told)
            for i = 1, #grants do reply[#reply + 1] = grants[i] end
            return reply
            """);

    /** A member queued by the call, with its ticket and the fencing token reserved for it. */
    record Ticket(String member, long ticket, long token) {}

    /**
     * What Redis answered.
     *
     * @param serverMillis the server's clock when the call ran
     * @param bound the lowest ticket of another process's waiter, or the next ticket if none queues
     * @param tickets the members the call queued, in ticket order
     * @param granted the members Redis granted a permit to, at their lease
     */
    record Answer(long serverMillis, long bound, List<Ticket> tickets, List<String> granted) {}

    /**
     * Sends the call for the waiters of process {@code ownerPrefix} on fair semaphore {@code name}
     * of {@code limit} permits, whose places live {@code waiterTtlMillis} unless renewed.
     */
    Answer send(RedisDeployment deployment, String name, int limit, long waiterTtlMillis) {
        List<String> args = new ArrayList<>(10 + this.leaving.size() + this.arriving.size() + this.waiting.size());
        args.add(deployment.leases().ownerPrefix());
        args.add(Integer.toString(limit));
        args.add(deployment.options().fenceTtlMillis(this.longestLease));
        args.add(Long.toString(waiterTtlMillis));
        args.add(Integer.toString(this.leaving.size()));
        args.add(Integer.toString(this.arriving.size()));
        args.add(deployment.keys().semaphoreChannel(name));
        args.add(deployment.signalMode().publishCommand());
        args.add(Integer.toString(this.waiting.size()));
        args.add(this.look);
        args.addAll(this.leaving);
        args.addAll(this.arriving);
        args.addAll(this.waiting);
        List<?> reply = (List<?>) Uninterrupted.call(() -> deployment
                .scripts()
                .eval(
                        SCRIPT,
                        "wait for a permit of fair semaphore '" + name + "'",
                        PermitGrant.fairKeys(deployment.keys(), name),
                        args));
        long firstToken = (Long) reply.get(2);
        int queued = ((Long) reply.get(3)).intValue();
        List<Ticket> tickets = new ArrayList<>(queued);
        for (int i = 0; i < queued; i++) {
            tickets.add(new Ticket((String) reply.get(4 + 2 * i), (Long) reply.get(5 + 2 * i), firstToken + i));
        }
        List<String> granted = new ArrayList<>();
        for (int i = 4 + 2 * queued; i < reply.size(); i++) {
            granted.add((String) reply.get(i));
        }
        return new Answer((Long) reply.get(0), (Long) reply.get(1), tickets, granted);
    }
}
