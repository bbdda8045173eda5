package dev.turnstile.spring.autoconfigure;

import dev.turnstile.spring.web.TurnstileProblemHandler;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * In a Spring MVC or WebFlux application: refusals and lost leases become problem details (429,
 * 409, 503), unless {@code turnstile.web.problem-details=false}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication
@ConditionalOnClass(name = "org.springframework.http.ProblemDetail")
@ConditionalOnBooleanProperty(name = "turnstile.web.problem-details", matchIfMissing = true)
class TurnstileWebConfiguration {

    @Bean
    @ConditionalOnMissingBean
    TurnstileProblemHandler turnstileProblemHandler(TurnstileProperties properties) {
        return new TurnstileProblemHandler(properties.getWeb().getRetryAfter());
    }
}
