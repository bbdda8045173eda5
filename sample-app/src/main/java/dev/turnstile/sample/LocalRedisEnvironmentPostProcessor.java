package dev.turnstile.sample;

import java.util.Map;
import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Keeps the sample off other people's data: unless a Redis is configured ({@code
 * spring.data.redis.host}, {@code port}, {@code url}, {@code sentinel.master} or {@code
 * cluster.nodes}), it starts a {@code redis-server} of its own on a free port (an {@link
 * OwnRedisServer}, which never outlives the application and is started again if it dies), points
 * the application at it, logs where it is, and registers it as the bean {@code ownRedisServer}. It
 * never uses a server it was not told about, not even one on localhost:6379. Sets {@code
 * sample.local-redis.started=true} and {@code sample.local-redis.port} when it started one. Off
 * with {@code sample.local-redis.enabled=false}.
 */
class LocalRedisEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    /** Set to {@code true} when the sample runs on a redis-server it started itself. */
    static final String STARTED = "sample.local-redis.started";

    /** The port of the redis-server the sample started. */
    static final String PORT = "sample.local-redis.port";

    private final Log log;

    LocalRedisEnvironmentPostProcessor(DeferredLogFactory logs) {
        this.log = logs.getLog(LocalRedisEnvironmentPostProcessor.class);
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!environment.getProperty("sample.local-redis.enabled", Boolean.class, true) || configured(environment)) {
            return;
        }
        OwnRedisServer server = OwnRedisServer.start(true);
        application.addInitializers(context -> context.getBeanFactory().registerSingleton("ownRedisServer", server));
        environment
                .getPropertySources()
                .addFirst(new MapPropertySource(
                        "localRedis",
                        Map.of(
                                "spring.data.redis.host",
                                "127.0.0.1",
                                "spring.data.redis.port",
                                server.port(),
                                STARTED,
                                true,
                                PORT,
                                server.port())));
        this.log.info("No Redis configured (spring.data.redis.*): started a redis-server of the sample's own on"
                + " 127.0.0.1:" + server.port() + " (pid " + server.pid() + ", directory " + server.directory()
                + "); it stops with the application, however the application ends, and its data with it. To use"
                + " another server, set spring.data.redis.host and spring.data.redis.port.");
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    private static boolean configured(ConfigurableEnvironment environment) {
        return environment.containsProperty("spring.data.redis.host")
                || environment.containsProperty("spring.data.redis.url")
                || environment.containsProperty("spring.data.redis.port")
                || environment.containsProperty("spring.data.redis.sentinel.master")
                || environment.containsProperty("spring.data.redis.cluster.nodes");
    }
}
