package dev.turnstile.spring.autoconfigure;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.spring.actuate.TurnstileEndpoint;
import dev.turnstile.spring.internal.actuate.TurnstileEndpointWebExtension;
import dev.turnstile.spring.internal.aop.HeldGuards;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code turnstile} actuator endpoint, when the actuator is present, with its web extension:
 * read only unless {@code turnstile.endpoint.force-release=true}. The health indicator is
 * line-specific: it comes with {@code lock-boot3-autoconfigure} or {@code lock-boot4-autoconfigure}.
 */
@Configuration(proxyBeanMethods = false)
class TurnstileActuatorConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    static class Endpoints {

        @Bean
        @ConditionalOnMissingBean
        TurnstileEndpoint turnstileEndpoint(Turnstile turnstile, HeldGuards held, ObjectProvider<Redlock> redlock) {
            return new TurnstileEndpoint(turnstile, held, redlock.getIfAvailable());
        }

        /** Read only, unless {@code turnstile.endpoint.force-release=true}. */
        @Bean
        @ConditionalOnMissingBean(TurnstileEndpointWebExtension.class)
        @ConditionalOnBooleanProperty(
                name = "turnstile.endpoint.force-release",
                havingValue = false,
                matchIfMissing = true)
        TurnstileEndpointWebExtension turnstileEndpointWebExtension(TurnstileEndpoint endpoint) {
            return new TurnstileEndpointWebExtension(endpoint);
        }

        /** With the write operation: {@code turnstile.endpoint.force-release=true}. */
        @Bean
        @ConditionalOnMissingBean(TurnstileEndpointWebExtension.class)
        @ConditionalOnBooleanProperty("turnstile.endpoint.force-release")
        TurnstileEndpointWebExtension.WithForceRelease turnstileForceReleaseWebExtension(TurnstileEndpoint endpoint) {
            return new TurnstileEndpointWebExtension.WithForceRelease(endpoint);
        }
    }
}
