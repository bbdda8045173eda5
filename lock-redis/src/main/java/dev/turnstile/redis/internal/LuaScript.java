package dev.turnstile.redis.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * A Lua script run by its SHA-1 ({@code EVALSHA}). The first call on a server that does not know
 * the script (a new server, a restart, a failover, another cluster node) gets {@code NOSCRIPT} and
 * falls back to {@code EVAL}, which also caches it there; so the script is sent in full about once
 * per server, with no separate load step to go stale.
 */
final class LuaScript {

    private final String source;
    private final String sha;

    private LuaScript(String source) {
        this.source = source;
        this.sha = sha1(source);
    }

    /** Creates a script from its source. */
    public static LuaScript of(String source) {
        return new LuaScript(source);
    }

    /** Runs the script; Jedis exceptions pass through (see {@link RedisErrors}). */
    public Object run(UnifiedJedis redis, List<String> keys, List<String> args) {
        try {
            return redis.evalsha(this.sha, keys, args);
        } catch (JedisNoScriptException notCached) {
            return redis.eval(this.source, keys, args);
        }
    }

    /** Returns the script's source. */
    public String source() {
        return this.source;
    }

    /** Returns the script's SHA-1 in hex. */
    public String sha() {
        return this.sha;
    }

    private static String sha1(String text) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-1");
            return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by the Java platform", e);
        }
    }
}
