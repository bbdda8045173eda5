package dev.turnstile.benchmarks;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.spring.autoconfigure.TurnstileAutoConfiguration;
import java.time.Duration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.UnifiedJedis;

/** A bean with a {@code @DistributedLock} method, to measure what the aspect adds to the core lock. */
public class AnnotatedService {

    /** Same work as the direct scenario: acquire (fixed 30 s lease), nothing, release. */
    @DistributedLock(key = "solo-annotated:#{#id}", waitTime = "30s", leaseTime = "30s")
    public Boolean work(String id) {
        return Boolean.TRUE;
    }

    /** The benchmark's counting client, handed to the application as its own {@code UnifiedJedis}. */
    private static UnifiedJedis client;

    static ConfigurableApplicationContext start(int redisPort, UnifiedJedis countingClient) {
        client = countingClient;
        return new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .logStartupInfo(false)
                .properties(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redisPort,
                        "spring.data.redis.timeout=" + Duration.ofSeconds(5).toMillis() + "ms",
                        "spring.main.banner-mode=off")
                .run();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(TurnstileAutoConfiguration.class)
    static class Application {
        @Bean
        AnnotatedService annotatedService() {
            return new AnnotatedService();
        }

        @Bean
        UnifiedJedis benchmarkRedis() {
            return client;
        }
    }
}
