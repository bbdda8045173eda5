package dev.turnstile.spring.autoconfigure;

import dev.turnstile.redis.LeaseListener;
import dev.turnstile.redis.lock.Redlock;
import java.net.URI;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.JedisPooled;

/** With {@code turnstile.redlock.nodes}, {@code @DistributedLock} locks by Redlock over those masters. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("!'${turnstile.redlock.nodes:${turnstile.redlock.nodes[0]:}}'.isEmpty()")
class TurnstileRedlockConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    RedlockMasters turnstileRedlockMasters(TurnstileProperties properties) {
        List<String> nodes = properties.getRedlock().getNodes();
        if (nodes.size() < 3) {
            throw new IllegalStateException("turnstile.redlock.nodes lists " + nodes.size()
                    + " masters; Redlock needs at least 3 independent masters (5 is usual)");
        }
        return new RedlockMasters(
                nodes.stream().map(node -> new JedisPooled(URI.create(node))).toList());
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    Redlock turnstileRedlock(
            RedlockMasters masters, TurnstileProperties properties, ObjectProvider<LeaseListener> listeners) {
        Redlock.Builder builder = Redlock.builder(masters.clients())
                .keyPrefix(properties.getKeyPrefix())
                .defaultLease(properties.getDefaultLease())
                .fenceRetention(properties.getFenceRetention())
                .nodeTimeout(properties.getRedlock().getNodeTimeout())
                .masterNames(properties.getRedlock().getNodes().stream()
                        .map(node -> {
                            URI uri = URI.create(node);
                            return uri.getHost() + ":" + uri.getPort();
                        })
                        .toList());
        listeners.orderedStream().forEach(builder::listener);
        return builder.build();
    }

    /** The clients of the Redlock masters, closed with the context. */
    record RedlockMasters(List<JedisPooled> clients) implements AutoCloseable {
        @Override
        public void close() {
            this.clients.forEach(JedisPooled::close);
        }
    }
}
