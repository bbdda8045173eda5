package dev.turnstile.sample.web;

import dev.turnstile.sample.OwnRedisServer;
import java.time.Duration;
import org.apache.catalina.core.StandardHost;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
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
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;

/**
 * The marketplace's own connections (the book's {@code conn}), on the Redis Spring Boot is
 * configured with: a pool of {@code spring.data.redis.jedis.pool.max-active} connections, unless
 * set as many as the server has request threads ({@code server.tomcat.threads.max}, 200), so that
 * no request ever waits for a connection that other requests hold. (A locked trade takes one only
 * once it holds its locks, see {@link TradeDesk}; a WATCH transaction holds one for its whole
 * run.) It waits at most 2 s for a free connection (then the request is answered 503) and checks a
 * connection before lending it, so one that died with a restarted Redis is replaced, not used. Its
 * commands time out after {@code spring.data.redis.timeout} (2 s unless set), connecting after
 * {@code spring.data.redis.connect-timeout}.
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

    /**
     * After the sample's own redis-server was restarted, drops the idle connections of the
     * marketplace's pool and of Turnstile's client: they were connected to the server that died, and
     * each would fail the request that borrowed it next. Registered before the {@link ExampleLoader}
     * reloads the example.
     */
    @Bean
    SmartInitializingSingleton dropConnectionsOfADeadServer(
            ObjectProvider<OwnRedisServer> ownServer, JedisPool marketConnections, UnifiedJedis turnstileClient) {
        return () -> ownServer.ifAvailable(server -> server.onRestart(() -> {
            marketConnections.clear();
            if (turnstileClient instanceof JedisPooled pooled) {
                pooled.getPool().clear();
            }
        }));
    }

    @Bean(destroyMethod = "close")
    JedisPool marketConnections(
            DataRedisConnectionDetails details,
            @Value("${spring.data.redis.jedis.pool.max-active:${server.tomcat.threads.max:200}}") int maxActive,
            @Value("${spring.data.redis.timeout:2s}") Duration timeout,
            @Value("${spring.data.redis.connect-timeout:2s}") Duration connectTimeout) {
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
                        .socketTimeoutMillis((int) timeout.toMillis())
                        .connectionTimeoutMillis((int) connectTimeout.toMillis())
                        .user(details.getUsername())
                        .password(details.getPassword())
                        .database(standalone.getDatabase())
                        .build());
    }
}
