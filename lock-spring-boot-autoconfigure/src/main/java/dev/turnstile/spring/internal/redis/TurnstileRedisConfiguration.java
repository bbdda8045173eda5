package dev.turnstile.spring.internal.redis;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.spring.autoconfigure.redis.RedisConnection;
import java.util.stream.Collectors;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Jedis client Turnstile uses, unless the application defines its own {@code UnifiedJedis}:
 * connected where the {@link RedisConnection} bean says (built by the Boot-line module from Spring
 * Boot's connection details), else where {@code spring.data.redis.*} says, with the SSL bundle
 * {@code spring.data.redis.ssl.bundle} names found in the application's {@link SslBundles}.
 */
@Configuration(proxyBeanMethods = false)
public class TurnstileRedisConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(UnifiedJedis.class)
    UnifiedJedis turnstileRedis(
            ObjectProvider<RedisConnection> connection, ObjectProvider<SslBundles> bundles, Environment environment) {
        SpringDataRedisSettings settings = SpringDataRedisSettings.bind(environment);
        return JedisClients.create(
                connection.getIfAvailable(() -> settings.connection(bundles.getIfAvailable())), settings);
    }

    /**
     * One WARN line at startup when Redis does not answer, one per server that may evict keys; the
     * application still starts.
     */
    @Bean
    @ConditionalOnMissingBean(name = "turnstileRedisStartupCheck")
    static SmartInitializingSingleton turnstileRedisStartupCheck(
            ObjectProvider<Turnstile> turnstile,
            ObjectProvider<Redlock> redlock,
            ObjectProvider<RedisConnection> connection,
            ObjectProvider<SslBundles> bundles,
            BeanFactory beanFactory,
            Environment environment) {
        return new RedisStartupCheck(turnstile, redlock, () -> {
            if (!beanFactory.containsBean("turnstileRedis")) {
                return "the application's UnifiedJedis bean";
            }
            RedisConnection used = connection.getIfAvailable(
                    () -> SpringDataRedisSettings.bind(environment).connection(bundles.getIfAvailable()));
            return used.nodes().stream().map(Object::toString).collect(Collectors.joining(", "));
        });
    }
}
