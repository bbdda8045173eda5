package dev.turnstile.benchmarks;

import java.util.List;
import java.util.UUID;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

/**
 * The floor a lock library can reach: {@code SET key token NX PX} to acquire, and either a plain
 * {@code DEL} or the owner-checked compare-and-delete script to release. No waiting strategy: a
 * contended acquire simply retries at once.
 */
final class RawLock {

    private static final String RELEASE =
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

    private final UnifiedJedis redis;
    private final String key;
    private final boolean ownerChecked;
    private final String token = UUID.randomUUID().toString();
    private final String releaseSha;

    RawLock(UnifiedJedis redis, String key, boolean ownerChecked) {
        this.redis = redis;
        this.key = key;
        this.ownerChecked = ownerChecked;
        this.releaseSha = redis.scriptLoad(RELEASE);
    }

    boolean tryAcquire() {
        return "OK"
                .equals(this.redis.set(
                        this.key, this.token, SetParams.setParams().nx().px(30_000)));
    }

    void acquireSpinning() {
        while (!tryAcquire()) {
            Thread.onSpinWait();
        }
    }

    void release() {
        if (this.ownerChecked) {
            this.redis.evalsha(this.releaseSha, List.of(this.key), List.of(this.token));
        } else {
            this.redis.del(this.key);
        }
    }
}
