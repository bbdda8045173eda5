package dev.turnstile.sample.web;

import dev.turnstile.sample.OwnRedisServer;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Where the marketplace keeps its data and what happened to the sample's own redis-server, for the
 * page's banner. Answers without Redis: it is what the page asks when Redis does not answer.
 */
@RestController
public class StatusController {

    private final DataRedisConnectionDetails redis;
    private final ObjectProvider<OwnRedisServer> ownServer;

    public StatusController(DataRedisConnectionDetails redis, ObjectProvider<OwnRedisServer> ownServer) {
        this.redis = redis;
        this.ownServer = ownServer;
    }

    /**
     * The sample's status.
     *
     * @param redis where the data is: {@code host:port}, database N
     * @param own whether that is the redis-server the sample started itself (its data lives only as
     *     long as that server)
     * @param server what happened to that server (restarts, a failure to restart), or null when the
     *     sample was pointed at a Redis
     * @param cores the processors this JVM may use, for the page's note on Table 6.3
     */
    public record Status(String redis, boolean own, OwnRedisServer.@Nullable Status server, int cores) {}

    @GetMapping("/status")
    public Status status() {
        DataRedisConnectionDetails.Standalone standalone = this.redis.getStandalone();
        String where = standalone == null
                ? "Redis"
                : standalone.getHost() + ":" + standalone.getPort() + ", database " + standalone.getDatabase();
        OwnRedisServer server = this.ownServer.getIfAvailable();
        return new Status(
                where,
                server != null,
                server == null ? null : server.status(),
                Runtime.getRuntime().availableProcessors());
    }
}
