package dev.turnstile.spring.autoconfigure;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.spring.actuate.TurnstileEndpoint;
import dev.turnstile.spring.actuate.TurnstileHealthIndicator;
import dev.turnstile.spring.aop.HeldGuards;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The {@code turnstile} actuator endpoint and health indicator, when the actuator is present. */
@Configuration(proxyBeanMethods = false)
class TurnstileActuatorConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    static class Endpoints {

        @Bean
        @ConditionalOnMissingBean
        TurnstileEndpoint turnstileEndpoint(Turnstile turnstile, HeldGuards held) {
            return new TurnstileEndpoint(turnstile, held);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Health {

        @Bean
        @ConditionalOnMissingBean(name = "turnstileHealthIndicator")
        TurnstileHealthIndicator turnstileHealthIndicator(Turnstile turnstile) {
            return new TurnstileHealthIndicator(turnstile);
        }
    }
}
