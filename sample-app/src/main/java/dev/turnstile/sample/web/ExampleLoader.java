package dev.turnstile.sample.web;

import dev.turnstile.sample.OwnRedisServer;
import dev.turnstile.sample.market.Scene;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Loads the market street ({@link Scene#STREET}) when the application starts, so that the page's
 * first open shows a marketplace to try, and again after the sample's own redis-server was
 * restarted (its data died with it). {@code sample.example.load-on-start}: {@code auto} (the
 * default) loads it on the redis-server the sample started itself, {@code true} on any Redis, {@code
 * false} never. It is loaded only into an empty database: it never overwrites data that is there.
 */
@Component
class ExampleLoader implements ApplicationRunner {

    private static final Log log = LogFactory.getLog(ExampleLoader.class);

    private final JedisPool pool;
    private final boolean enabled;
    private final ObjectProvider<OwnRedisServer> ownServer;

    ExampleLoader(
            JedisPool pool,
            @Value("${sample.example.load-on-start:auto}") String loadOnStart,
            @Value("${sample.local-redis.started:false}") boolean ownRedis,
            ObjectProvider<OwnRedisServer> ownServer) {
        this.pool = pool;
        this.enabled = switch (loadOnStart.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            case "auto" -> ownRedis;
            default ->
                throw new IllegalArgumentException(
                        "sample.example.load-on-start must be auto, true or false," + " but was '" + loadOnStart + "'");
        };
        this.ownServer = ownServer;
    }

    @Override
    public void run(ApplicationArguments args) {
        if (!this.enabled) {
            return;
        }
        loadIfEmpty("at startup");
        this.ownServer.ifAvailable(server -> server.onRestart(() -> loadIfEmpty("into the restarted redis-server")));
    }

    /** Loads the example if the database is empty; never fails the caller. */
    void loadIfEmpty(String when) {
        try (Jedis conn = this.pool.getResource()) {
            if (conn.dbSize() > 0) {
                log.info("The database is not empty, so the market street was not loaded " + when
                        + "; load it with the page's button or POST /example.");
                return;
            }
            Scene.STREET.load(conn);
            log.info("Loaded the market street " + when + ": Ann, Ben, Cara and Dev, and four listings.");
        } catch (JedisException e) {
            log.warn("Could not load the market street " + when + ": Redis did not answer (" + e.getMessage()
                    + "). Load it later with the page's button or POST /example.");
        }
    }
}
