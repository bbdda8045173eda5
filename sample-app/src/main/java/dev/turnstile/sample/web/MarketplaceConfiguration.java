package dev.turnstile.sample.web;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPool;

/** The marketplace's own connections (the book's {@code conn}), on the Redis Spring Boot is configured with. */
@Configuration(proxyBeanMethods = false)
class MarketplaceConfiguration {

    @Bean(destroyMethod = "close")
    JedisPool marketConnections(DataRedisConnectionDetails details) {
        DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
        return new JedisPool(
                new HostAndPort(standalone.getHost(), standalone.getPort()),
                DefaultJedisClientConfig.builder()
                        .user(details.getUsername())
                        .password(details.getPassword())
                        .database(standalone.getDatabase())
                        .build());
    }
}
