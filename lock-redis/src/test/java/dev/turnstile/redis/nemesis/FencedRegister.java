package dev.turnstile.redis.nemesis;

import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * Storage that rejects a stale holder: every read and write carries the holder's fencing token,
 * and an operation whose token is below the highest token seen so far is refused. With fenced
 * reads as well as writes, a read-modify-write by a holder whose lease ran out can never overwrite
 * the work of a later holder, so no acknowledged increment is ever lost as long as the lock's
 * tokens are unique and increase in the order the holds began. Lives in a Redis server the
 * nemesis never touches.
 */
final class FencedRegister {

    /** KEYS: value, highest token, accepted write tokens. ARGV: token, "read" or "write", value. */
    private static final String SCRIPT = """
            local highest = tonumber(redis.call('GET', KEYS[2]) or '0')
            local token = tonumber(ARGV[1])
            if token < highest then
              return -1
            end
            redis.call('SET', KEYS[2], ARGV[1])
            if ARGV[2] == 'write' then
              redis.call('SET', KEYS[1], ARGV[3])
              redis.call('RPUSH', KEYS[3], ARGV[1])
              return 1
            end
            return tonumber(redis.call('GET', KEYS[1]) or '0')
            """;

    private static final List<String> KEYS = List.of("register:value", "register:highest", "register:writes");

    private final UnifiedJedis redis;

    FencedRegister(UnifiedJedis redis) {
        this.redis = redis;
    }

    /** Returns the value, or -1 if {@code token} is stale. */
    long read(long token) {
        return (Long) this.redis.eval(SCRIPT, KEYS, List.of(Long.toString(token), "read", ""));
    }

    /** Writes {@code value}; false if {@code token} is stale. */
    boolean write(long token, long value) {
        return (Long) this.redis.eval(SCRIPT, KEYS, List.of(Long.toString(token), "write", Long.toString(value))) == 1;
    }

    long value() {
        String value = this.redis.get(KEYS.get(0));
        return value == null ? 0 : Long.parseLong(value);
    }

    List<Long> acceptedWriteTokens() {
        return this.redis.lrange(KEYS.get(2), 0, -1).stream()
                .map(Long::parseLong)
                .toList();
    }
}
