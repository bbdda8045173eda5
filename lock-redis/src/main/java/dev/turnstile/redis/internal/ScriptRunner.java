package dev.turnstile.redis.internal;

import dev.turnstile.redis.RedisUnavailableException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * Runs Turnstile's scripts and commands on one Redis client, in one place: scripts by SHA with
 * {@code NOSCRIPT} falling back to the source, a cluster's {@code TRYAGAIN} retried, {@code WAIT}
 * for replicas on the same connection, and Jedis exceptions translated into Turnstile's. Thread-safe.
 */
final class ScriptRunner {

    /**
     * {@code UnifiedJedis.pipelined()}, looked up by name: it returns {@code PipelineBase} on Jedis
     * 6 and {@code AbstractPipeline} from Jedis 7, so a call compiled against one line fails with
     * {@code NoSuchMethodError} on the other. Both results are {@link AbstractPipeline}s.
     */
    private static final Method PIPELINED = pipelinedMethod();

    private final UnifiedJedis redis;
    private final int minReplicas;
    private final Duration replicaTimeout;
    private final Set<String> scriptsUsed = ConcurrentHashMap.newKeySet();

    /**
     * @param minReplicas replicas a grant must reach ({@link #evalGranting}); 0 for none
     * @param replicaTimeout how long {@code WAIT} waits for them
     */
    public ScriptRunner(UnifiedJedis redis, int minReplicas, Duration replicaTimeout) {
        this.redis = redis;
        this.minReplicas = minReplicas;
        this.replicaTimeout = replicaTimeout;
    }

    /** Returns the Redis client. */
    public UnifiedJedis redis() {
        return this.redis;
    }

    /**
     * Runs {@code script}, translating Jedis exceptions into Turnstile's.
     *
     * @param operation what the call does, for messages, e.g. {@code "acquire lock 'item:42'"}
     */
    public Object eval(LuaScript script, String operation, List<String> keys, List<String> args) {
        for (int attempt = 1; ; attempt++) {
            try {
                Object result = script.run(this.redis, keys, args);
                markUsed(script);
                return result;
            } catch (JedisException e) {
                // TRYAGAIN: a cluster slot is moving and this call's keys are split for a moment.
                if (attempt < 20 && String.valueOf(e.getMessage()).startsWith("TRYAGAIN")) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                    continue;
                }
                throw RedisErrors.translate(e, operation);
            }
        }
    }

    /** Notes that {@code script} is cached on the server (read first: the set is written about once per script). */
    private void markUsed(LuaScript script) {
        if (!this.scriptsUsed.contains(script.sha())) {
            this.scriptsUsed.add(script.sha());
        }
    }

    /**
     * A script's reply and how many replicas acknowledged the writes before it.
     *
     * @param reply the script's reply
     * @param replicas replicas that acknowledged ({@code WAIT}'s answer)
     */
    public record Replicated(Object reply, long replicas) {}

    /**
     * Runs {@code script}, then {@code WAIT} for the required replicas on the same connection (a
     * pipeline), so the count is about this write. Translates Jedis exceptions.
     */
    public Replicated evalReplicated(LuaScript script, String operation, List<String> keys, List<String> args) {
        try {
            return waitOnSameConnection(script, keys, args, true);
        } catch (JedisNoScriptException notCached) {
            try {
                return waitOnSameConnection(script, keys, args, false);
            } catch (JedisException e) {
                throw RedisErrors.translate(e, operation);
            }
        } catch (JedisException e) {
            throw RedisErrors.translate(e, operation);
        }
    }

    /**
     * Runs an acquire script whose reply is a lone integer or a list starting with 1 when it granted.
     * With replicas required, a grant that reached fewer of them is released ({@code releaseGrant})
     * and refused.
     *
     * @param granted what was granted, for the message, e.g. {@code "Lock 'item:42'"}
     * @throws RedisUnavailableException if the grant did not reach the replicas required
     */
    public Object evalGranting(
            LuaScript script,
            String operation,
            List<String> keys,
            List<String> args,
            String granted,
            Runnable releaseGrant) {
        if (this.minReplicas == 0) {
            return eval(script, operation, keys, args);
        }
        Replicated replicated = evalReplicated(script, operation, keys, args);
        Object reply = replicated.reply();
        if ((reply instanceof Long || (Long) ((List<?>) reply).get(0) == 1)
                && replicated.replicas() < this.minReplicas) {
            releaseGrant.run();
            throw new RedisUnavailableException(
                    granted + " was granted by the master but reached only " + replicated.replicas() + " of the "
                            + this.minReplicas + " replicas required (minReplicas); it was released."
                            + " Check the replicas' health and replication lag.",
                    new IllegalStateException("WAIT acknowledged by " + replicated.replicas() + " replicas"));
        }
        return reply;
    }

    private Replicated waitOnSameConnection(LuaScript script, List<String> keys, List<String> args, boolean bySha) {
        try (AbstractPipeline pipeline = pipelined()) {
            Response<Object> reply =
                    bySha ? pipeline.evalsha(script.sha(), keys, args) : pipeline.eval(script.source(), keys, args);
            Response<Long> acknowledged =
                    pipeline.waitReplicas(keys.get(0), this.minReplicas, this.replicaTimeout.toMillis());
            pipeline.sync();
            Object result = reply.get();
            markUsed(script);
            return new Replicated(result, acknowledged.get());
        }
    }

    private AbstractPipeline pipelined() {
        try {
            return (AbstractPipeline) PIPELINED.invoke(this.redis);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException("UnifiedJedis.pipelined() failed", e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("UnifiedJedis.pipelined() is not accessible", e);
        }
    }

    private static Method pipelinedMethod() {
        try {
            return UnifiedJedis.class.getMethod("pipelined");
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("this Jedis has no UnifiedJedis.pipelined(), which minReplicas needs", e);
        }
    }

    /** Runs a plain Jedis command, translating Jedis exceptions into Turnstile's. */
    public <T> T call(String operation, Function<UnifiedJedis, T> command) {
        try {
            return command.apply(this.redis);
        } catch (JedisException e) {
            throw RedisErrors.translate(e, operation);
        }
    }

    /**
     * Returns how many of the scripts run so far are cached on the server ({@code SCRIPT EXISTS}),
     * and how many were run; for health checks. A server restart empties the cache; scripts reload
     * by themselves on next use.
     *
     * @return {@code {cached, used}}
     */
    public int[] scriptsLoaded() {
        List<String> used = List.copyOf(this.scriptsUsed);
        if (used.isEmpty()) {
            return new int[] {0, 0};
        }
        List<Boolean> exists = call("check scripts", redis -> redis.scriptExists(used));
        return new int[] {(int) exists.stream().filter(Boolean::booleanValue).count(), used.size()};
    }
}
