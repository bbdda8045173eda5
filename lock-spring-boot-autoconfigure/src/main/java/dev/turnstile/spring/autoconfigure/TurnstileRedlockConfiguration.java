package dev.turnstile.spring.autoconfigure;

import dev.turnstile.redis.LeaseListener;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.spring.internal.redis.JedisClients;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.UnifiedJedis;

/**
 * With {@code turnstile.redlock.nodes}, {@code @DistributedLock} locks by Redlock over those masters;
 * over TLS for {@code rediss://} nodes, or for all of them with {@code turnstile.redlock.ssl.*}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("!'${turnstile.redlock.nodes:${turnstile.redlock.nodes[0]:}}'.isEmpty()")
class TurnstileRedlockConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    RedlockMasters turnstileRedlockMasters(TurnstileProperties properties, ObjectProvider<SslBundles> bundles) {
        List<String> nodes = properties.getRedlock().getNodes();
        if (nodes.size() < 3) {
            throw new IllegalStateException("turnstile.redlock.nodes lists " + nodes.size()
                    + " masters; Redlock needs at least 3 independent masters (5 is usual)");
        }
        TurnstileProperties.Ssl ssl = properties.getRedlock().getSsl();
        List<URI> uris = nodes.stream().map(TurnstileRedlockConfiguration::node).toList();
        SslBundle bundle = ssl.isEnabled() || uris.stream().anyMatch(uri -> "rediss".equals(uri.getScheme()))
                ? bundle(ssl.getBundle(), bundles.getIfAvailable())
                : null;
        List<UnifiedJedis> clients = new ArrayList<>();
        for (URI uri : uris) {
            boolean tls = ssl.isEnabled() || "rediss".equals(uri.getScheme());
            clients.add(JedisClients.redlockMaster(uri, tls ? bundle : null));
        }
        return new RedlockMasters(clients);
    }

    private static URI node(String node) {
        try {
            URI uri = URI.create(node.trim());
            if (("redis".equals(uri.getScheme()) || "rediss".equals(uri.getScheme())) && uri.getHost() != null) {
                return uri;
            }
        } catch (IllegalArgumentException e) {
            // explained below
        }
        throw new IllegalStateException("turnstile.redlock.nodes lists '" + node + "'; write each master as"
                + " redis://host:port, or rediss://host:port for TLS");
    }

    /** The named bundle, else the JVM's trust store. */
    private static SslBundle bundle(@Nullable String name, @Nullable SslBundles bundles) {
        if (name == null || name.isBlank()) {
            return SslBundle.systemDefault();
        }
        if (bundles == null) {
            throw new IllegalStateException("turnstile.redlock.ssl.bundle is '" + name + "', but the application has"
                    + " no SslBundles bean to find it in; keep Spring Boot's SslAutoConfiguration (spring.ssl.bundle.*)"
                    + " enabled");
        }
        try {
            return bundles.getBundle(name.trim());
        } catch (NoSuchSslBundleException e) {
            throw new IllegalStateException("turnstile.redlock.ssl.bundle is '" + name + "', but no SSL bundle has"
                    + " that name (defined: " + bundles.getBundleNames() + "); define it, for example"
                    + " spring.ssl.bundle.pem." + name.trim() + ".truststore.certificate=classpath:redis-ca.pem");
        }
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
                            URI uri = node(node);
                            return uri.getHost() + ":" + uri.getPort();
                        })
                        .toList());
        listeners.orderedStream().forEach(builder::listener);
        return builder.build();
    }

    /** The clients of the Redlock masters, closed with the context. */
    record RedlockMasters(List<UnifiedJedis> clients) implements AutoCloseable {
        @Override
        public void close() {
            this.clients.forEach(UnifiedJedis::close);
        }
    }
}
