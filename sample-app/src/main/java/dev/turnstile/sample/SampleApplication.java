package dev.turnstile.sample;

import dev.turnstile.test.redis.RedisServer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The marketplace of Redis in Action, chapter 6.2, on Turnstile.
 *
 * <pre>
 * java -jar sample-app.jar                  the web app on :8080 (see README for the endpoints)
 * java -jar sample-app.jar --benchmark      the book's Table 6.3, measured (--duration=10s per row)
 * java -jar sample-app.jar --lab            the book's five lock stages against their faults
 * </pre>
 */
@SpringBootApplication
@EnableScheduling
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication application = new SpringApplication(SampleApplication.class);
        boolean command = Arrays.stream(args).anyMatch(arg -> arg.equals("--benchmark") || arg.equals("--lab"));
        if (!command) {
            application.run(args);
            return;
        }
        // The benchmark and the lab flush and break Redis: they get a redis-server of their own.
        application.setWebApplicationType(WebApplicationType.NONE);
        try (RedisServer server = RedisServer.start()) {
            List<String> withServer = new ArrayList<>(List.of(args));
            withServer.add("--spring.data.redis.host=127.0.0.1");
            withServer.add("--spring.data.redis.port=" + server.port());
            withServer.add("--spring.data.redis.jedis.pool.max-active=64");
            withServer.add("--logging.level.dev.turnstile=ERROR");
            int exit = SpringApplication.exit(application.run(withServer.toArray(String[]::new)));
            server.close();
            System.exit(exit);
        }
    }
}
