package dev.turnstile.spring.autoconfigure.redis;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Jedis client Turnstile uses, unless the application defines its own {@code UnifiedJedis}:
 * connected where the {@link RedisConnection} bean says (built by the Boot-line module from Spring
 * Boot's connection details), else where {@code spring.data.redis.*} says.
 */
@Configuration(proxyBeanMethods = false)
public class TurnstileRedisConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(UnifiedJedis.class)
    UnifiedJedis turnstileRedis(ObjectProvider<RedisConnection> connection, Environment environment) {
        SpringDataRedisSettings settings = SpringDataRedisSettings.bind(environment);
        return JedisClients.create(connection.getIfAvailable(settings::connection), settings);
    }
}
