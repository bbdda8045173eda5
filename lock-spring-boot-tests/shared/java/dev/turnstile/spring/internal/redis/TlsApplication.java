package dev.turnstile.spring.internal.redis;

import dev.turnstile.spring.autoconfigure.redis.RedisConnection;
import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.spring.LockContext;
import java.util.ArrayList;
import java.util.List;
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
 * An application that reaches a TLS-only Redis, run in a JVM of its own by {@code
 * RedisTlsIntegrationTests}: with only the starter on the classpath, or with Spring Data Redis as
 * well. Its JVM trusts the test authority by {@code javax.net.ssl.trustStore}, so {@code rediss://}
 * and {@code ssl.enabled} can use the JVM's trust store. It starts three times, once per way of
 * asking for TLS, and prints {@code spring-data-redis present|absent}, then for each {@code locked
 * <way> <connection-details|settings> token <n>}, or {@code failed <way> <message>}.
 *
 * <p>Arguments: the TLS port, the authority's PEM certificate, the PKCS12 trust store and its password.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class TlsApplication {

    public static void main(String[] args) {
        System.setProperty("javax.net.ssl.trustStore", args[2]);
        System.setProperty("javax.net.ssl.trustStorePassword", args[3]);
        System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
        System.out.println("spring-data-redis " + presence("org.springframework.data.redis.core.RedisOperations"));
        // Only what reaching Redis needs: Boot's SSL bundles and Redis (when present), and Turnstile's.
        String others = ImportCandidates.load(AutoConfiguration.class, TlsApplication.class.getClassLoader())
                .getCandidates()
                .stream()
                .filter(name -> !name.startsWith("dev.turnstile.")
                        && !name.endsWith(".SslAutoConfiguration")
                        && !name.endsWith(".RedisAutoConfiguration")
                        && !name.endsWith(".DataRedisAutoConfiguration"))
                .collect(Collectors.joining(","));
        String port = args[0];
        run("ssl.bundle", others, List.of(
                "--spring.data.redis.host=localhost",
                "--spring.data.redis.port=" + port,
                "--spring.data.redis.ssl.bundle=redis",
                "--spring.ssl.bundle.pem.redis.truststore.certificate=file:" + args[1]));
        run("rediss-url", others, List.of("--spring.data.redis.url=rediss://localhost:" + port));
        run("ssl.enabled", others, List.of(
                "--spring.data.redis.host=localhost",
                "--spring.data.redis.port=" + port,
                "--spring.data.redis.ssl.enabled=true"));
        System.exit(0);
    }

    private static void run(String way, String excluded, List<String> properties) {
        List<String> arguments = new ArrayList<>(properties);
        arguments.add("--spring.autoconfigure.exclude=" + excluded);
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(TlsApplication.class)
                .web(WebApplicationType.NONE)
                .run(arguments.toArray(String[]::new))) {
            String path = context.getBeanNamesForType(RedisConnection.class).length > 0
                    ? "connection-details"
                    : "settings";
            System.out.println("locked " + way + " " + path + " token " + context.getBean(Guarded.class).token());
        } catch (RuntimeException | LinkageError e) {
            e.printStackTrace(System.out);
            System.out.println("failed " + way + " " + e.getMessage());
        }
    }

    private static String presence(String className) {
        try {
            Class.forName(className, false, TlsApplication.class.getClassLoader());
            return "present";
        } catch (ClassNotFoundException e) {
            return "absent";
        }
    }

    @Bean
    Guarded guarded() {
        return new Guarded();
    }

    /** A guarded method. */
    public static class Guarded {

        @DistributedLock(key = "tls")
        public long token() {
            return LockContext.current().fencingToken();
        }
    }
}
