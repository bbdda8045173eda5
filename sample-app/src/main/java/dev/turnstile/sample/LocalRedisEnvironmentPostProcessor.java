package dev.turnstile.sample;

import dev.turnstile.test.redis.RedisServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Lets the sample run with nothing installed but a JDK: when no Redis is configured ({@code
 * spring.data.redis.host}, {@code url}, {@code sentinel}, {@code cluster}) and nothing answers on
 * localhost:6379, it starts a local {@code redis-server} (through lock-test-support's launcher)
 * and points the application at it. A configured Redis is always used as is. Off with {@code
 * sample.local-redis.enabled=false}.
 */
class LocalRedisEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    private final Log log;

    LocalRedisEnvironmentPostProcessor(DeferredLogFactory logs) {
        this.log = logs.getLog(LocalRedisEnvironmentPostProcessor.class);
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!environment.getProperty("sample.local-redis.enabled", Boolean.class, true) || configured(environment)) {
            return;
        }
        int probe = environment.getProperty("sample.local-redis.probe-port", Integer.class, 6379);
        if (answers("localhost", probe)) {
            this.log.info("Using the Redis server on localhost:" + probe);
            environment
                    .getPropertySources()
                    .addFirst(new MapPropertySource(
                            "localRedis",
                            Map.of("spring.data.redis.host", "localhost", "spring.data.redis.port", probe)));
            return;
        }
        RedisServer server = RedisServer.start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "local-redis-stop"));
        environment
                .getPropertySources()
                .addFirst(new MapPropertySource(
                        "localRedis",
                        Map.of("spring.data.redis.host", "127.0.0.1", "spring.data.redis.port", server.port())));
        this.log.info("No Redis configured and none on localhost:6379: started a local redis-server on port "
                + server.port() + " (it stops with the application)");
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

    private static boolean answers(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 300);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
