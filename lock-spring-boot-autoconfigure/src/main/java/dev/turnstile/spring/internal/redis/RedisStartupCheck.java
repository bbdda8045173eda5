package dev.turnstile.spring.internal.redis;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.TurnstileDiagnostics;
import dev.turnstile.redis.lock.Redlock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Pings Redis once when the application's singletons are ready. An unreachable Redis does not stop
 * the application (guarded calls fail, HTTP 503, until it answers; the health indicator is down):
 * it is one WARN line naming where Redis was looked for and why it did not answer, not a stack
 * trace. When Redis answers, reads whether its servers (and the Redlock masters) may evict keys, so
 * that Turnstile's WARN for each server that may is logged before the application is ready (once:
 * the read Turnstile starts in the background does not log it again).
 */
final class RedisStartupCheck implements SmartInitializingSingleton {

    private static final Logger log =
            LoggerFactory.getLogger("dev.turnstile.spring.autoconfigure.redis.RedisStartupCheck");

    private final ObjectProvider<Turnstile> turnstile;
    private final ObjectProvider<Redlock> redlock;
    private final Supplier<String> address;

    /**
     * @param turnstile the Turnstile to check, if there is one
     * @param redlock the Redlock whose masters to check for eviction, if there is one
     * @param address where Redis is looked for ({@code host:port}, or several), for the message
     */
    RedisStartupCheck(ObjectProvider<Turnstile> turnstile, ObjectProvider<Redlock> redlock, Supplier<String> address) {
        this.turnstile = turnstile;
        this.redlock = redlock;
        this.address = address;
    }

    @Override
    public void afterSingletonsInstantiated() {
        Turnstile checked = this.turnstile.getIfUnique();
        if (checked == null) {
            return;
        }
        TurnstileDiagnostics.Health health = checked.diagnostics().health();
        if (health.error() != null) {
            log.warn(
                    "Redis at {} did not answer at startup ({}). The application starts; @DistributedLock and"
                            + " @Semaphore methods fail (HTTP 503) and the turnstile health indicator is down until"
                            + " it answers. Check spring.data.redis.* (host, port, url, password, ssl.enabled,"
                            + " ssl.bundle).",
                    this.address.get(),
                    health.error().getMessage());
            return;
        }
        checked.diagnostics().eviction();
        Redlock masters = this.redlock.getIfUnique();
        if (masters != null) {
            masters.eviction();
        }
    }
}
