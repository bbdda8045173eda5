package dev.turnstile.spring.autoconfigure;

import dev.turnstile.spring.internal.metrics.AcquireMeterDescriptions;
import dev.turnstile.spring.internal.metrics.MicrometerGuardObserver;
import dev.turnstile.spring.metrics.AcquireObservationConvention;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Micrometer metrics and observations, when Micrometer and a {@code MeterRegistry} are present: the
 * application's {@code ObservationRegistry} (if any) records each acquisition, named by its {@link
 * AcquireObservationConvention} bean (if any).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
class TurnstileMetricsConfiguration {

    /** Descriptions for the meters made of the acquire observation (Prometheus's HELP). */
    @Bean
    static AcquireMeterDescriptions turnstileAcquireMeterDescriptions() {
        return new AcquireMeterDescriptions();
    }

    @Bean
    @ConditionalOnMissingBean
    MicrometerGuardObserver turnstileMicrometerObserver(
            MeterRegistry meters,
            ObjectProvider<ObservationRegistry> observations,
            ObjectProvider<AcquireObservationConvention> convention) {
        return new MicrometerGuardObserver(
                meters, observations.getIfAvailable(() -> ObservationRegistry.NOOP), convention.getIfAvailable());
    }
}
