package dev.turnstile.spring.autoconfigure;

import dev.turnstile.spring.web.TurnstileProblemHandler;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.server.WebExceptionHandler;

/**
 * In a Spring MVC or WebFlux application: refusals and lost leases become problem details (429,
 * 409, 503) for API clients and the application's error page for browsers, unless {@code
 * turnstile.web.problem-details=false}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "org.springframework.http.ProblemDetail")
@ConditionalOnBooleanProperty(name = "turnstile.web.problem-details", matchIfMissing = true)
class TurnstileWebConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "jakarta.servlet.http.HttpServletResponse")
    static class Servlet {

        @Bean
        @ConditionalOnMissingBean(TurnstileProblemHandler.class)
        TurnstileProblemHandler.Servlet turnstileProblemHandler(TurnstileProperties properties) {
            return new TurnstileProblemHandler.Servlet(properties.getWeb().getRetryAfter());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    static class Reactive {

        @Bean
        @ConditionalOnMissingBean(TurnstileProblemHandler.class)
        TurnstileProblemHandler.Reactive turnstileProblemHandler(
                TurnstileProperties properties, ObjectProvider<WebExceptionHandler> errorHandlers) {
            return new TurnstileProblemHandler.Reactive(properties.getWeb().getRetryAfter(), errorHandlers);
        }
    }
}
