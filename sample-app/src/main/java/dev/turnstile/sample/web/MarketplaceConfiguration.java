package dev.turnstile.sample.web;

import java.time.Duration;
import org.apache.catalina.core.StandardHost;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;

/**
 * The marketplace's own connections (the book's {@code conn}), on the Redis Spring Boot is
 * configured with: a pool of {@code spring.data.redis.jedis.pool.max-active} (16 unless set) that
 * waits at most 2 s for a free connection (then the request is answered 503) and checks a
 * connection before lending it, so one that died with a restarted Redis is replaced, not used.
 */
@Configuration(proxyBeanMethods = false)
class MarketplaceConfiguration {

    /** Tomcat's own refusals answered as problem details too (see {@link ProblemErrorReportValve}). */
    @Bean
    WebServerFactoryCustomizer<TomcatServletWebServerFactory> problemErrorReports() {
        return factory -> factory.addContextCustomizers(context -> {
            if (context.getParent() instanceof StandardHost host) {
                host.setErrorReportValveClass(ProblemErrorReportValve.class.getName());
            }
        });
    }

    @Bean(destroyMethod = "close")
    JedisPool marketConnections(
            DataRedisConnectionDetails details, @Value("${spring.data.redis.jedis.pool.max-active:16}") int maxActive) {
        if (details.getSentinel() != null || details.getCluster() != null) {
            throw new IllegalStateException("The marketplace keeps its data in the book's layout on one Redis server,"
                    + " but spring.data.redis names a Sentinel or Cluster deployment; point"
                    + " spring.data.redis.host and spring.data.redis.port at one server (Turnstile itself runs"
                    + " on all three: see the README's Deployments).");
        }
        DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
        JedisPoolConfig pool = new JedisPoolConfig();
        pool.setMaxTotal(maxActive);
        pool.setMaxWait(Duration.ofSeconds(2));
        pool.setTestOnBorrow(true);
        return new JedisPool(
                pool,
                new HostAndPort(standalone.getHost(), standalone.getPort()),
                DefaultJedisClientConfig.builder()
                        .user(details.getUsername())
                        .password(details.getPassword())
                        .database(standalone.getDatabase())
                        .build());
    }
}
