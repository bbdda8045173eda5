package dev.turnstile.spring.autoconfigure;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.spring.LockContext;
import java.util.stream.Collectors;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A new application with the starter and nothing else: run in a JVM of its own whose classpath
 * lacks the libraries the starter keeps optional (spring-tx, Reactor, Spring Data Redis,
 * Micrometer, the actuator, Spring Web), by
 * {@code TurnstileAutoConfigurationTests}. Turnstile's auto-configurations are its only ones.
 * Prints which of those libraries it can see, then {@code locked} with two counts and a fencing
 * token; argument: the Redis port.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class WithoutOptionalLibrariesApplication {

    public static void main(String[] args) {
        System.out.println("spring-tx " + presence("org.springframework.transaction.PlatformTransactionManager"));
        System.out.println("reactor " + presence("reactor.core.publisher.Mono"));
        System.out.println("spring-data-redis " + presence("org.springframework.data.redis.core.RedisOperations"));
        System.out.println("micrometer " + presence("io.micrometer.core.instrument.MeterRegistry"));
        System.out.println("actuator " + presence("org.springframework.boot.actuate.endpoint.annotation.Endpoint"));
        System.out.println("spring-web " + presence("org.springframework.web.bind.annotation.RestController"));
        String others = ImportCandidates.load(AutoConfiguration.class, WithoutOptionalLibrariesApplication.class.getClassLoader())
                .getCandidates()
                .stream()
                .filter(name -> !name.startsWith("dev.turnstile."))
                .collect(Collectors.joining(","));
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(
                        WithoutOptionalLibrariesApplication.class)
                .web(WebApplicationType.NONE)
                .run(
                        "--spring.autoconfigure.exclude=" + others,
                        "--spring.data.redis.host=127.0.0.1",
                        "--spring.data.redis.port=" + args[0])) {
            Counter counter = context.getBean(Counter.class);
            System.out.println("locked " + counter.next() + " " + counter.next() + " token " + counter.lastToken());
        } catch (RuntimeException | LinkageError e) {
            e.printStackTrace(System.out);
            System.exit(1); // at once, whatever threads the failed start left running
        }
        System.exit(0);
    }

    private static String presence(String className) {
        try {
            Class.forName(className, false, WithoutOptionalLibrariesApplication.class.getClassLoader());
            return "present";
        } catch (ClassNotFoundException e) {
            return "absent";
        }
    }

    @Bean
    Counter counter() {
        return new Counter();
    }

    /** A guarded method. */
    public static class Counter {
        private int count;
        private long lastToken;

        @DistributedLock(key = "without-optional-libraries")
        public int next() {
            this.lastToken = LockContext.current().fencingToken();
            return ++this.count;
        }

        public long lastToken() {
            return this.lastToken;
        }
    }
}
