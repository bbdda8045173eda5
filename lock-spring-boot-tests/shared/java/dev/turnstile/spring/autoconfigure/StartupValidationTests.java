package dev.turnstile.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.annotation.OnFailure;
import dev.turnstile.annotation.Semaphore;
import dev.turnstile.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import dev.turnstile.spring.BootLine;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class StartupValidationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    BootLine.turnstile())
            .withPropertyValues(
                    "spring.data.redis.host=127.0.0.1",
                    "spring.data.redis.port=" + redis.server().port());

    @Test
    void everyBadMethodIsListedInOneFailure() {
        this.runner.withUserConfiguration(BadBeans.class).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            while (!(failure instanceof TurnstileConfigurationException) && failure.getCause() != null) {
                failure = failure.getCause();
            }
            assertThat(failure).isInstanceOf(TurnstileConfigurationException.class);
            TurnstileConfigurationException problems = (TurnstileConfigurationException) failure;
            assertThat(problems.problems()).hasSize(9);
            assertThat(problems.getMessage())
                    .contains("Orders.badWait(String): 'waitTime' \"soon\" is not a duration")
                    .contains("Orders.badLease(String): 'leaseTime' must be positive but was \"0s\"")
                    .contains("Orders.badKey(String): key template 'item:#{#id' does not parse: Unclosed #{")
                    .contains("Orders.skipPrimitive(String): onFailure = SKIP cannot produce a int")
                    .contains("Orders.missingFallback(String): fallback 'nowhere' not found")
                    .contains(
                            "Orders.wrongFallback(String): fallback 'text' returns String, which is not assignable to Integer")
                    .contains(
                            "Orders.missingPlaceholder(String): 'waitTime' \"${no.such.property}\" has an unresolvable placeholder")
                    .contains("Quotas.zeroLimit(String): 'limit' must be at least 1 but was 0")
                    .contains("Quotas.bothLimits(String): give 'limit' or 'limitExpression', not both");

            FailureAnalysis analysis = new TurnstileFailureAnalyzer().analyze(failure);
            assertThat(analysis.getDescription()).contains("9 @DistributedLock/@Semaphore method(s) are misconfigured");
            assertThat(analysis.getAction()).contains("durations look like 500ms, 5s, PT5S");
        });
    }

    @Test
    void annotationOnAnInterfaceMethodOnlyIsReportedInsteadOfSilentlyIgnored() {
        this.runner.withUserConfiguration(InterfaceOnly.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasMessageContaining(
                            "the annotation on Greeter.greet is not applied; annotate the implementing method");
        });
    }

    @Test
    void goodMethodsStartFineAndPlaceholdersResolve() {
        this.runner
                .withUserConfiguration(GoodBeans.class)
                .withPropertyValues("app.wait=250ms", "app.limit=3")
                .run(context -> assertThat(context).hasNotFailed());
    }

    static class Orders {
        @DistributedLock(key = "a:#id", waitTime = "soon")
        public void badWait(String id) {}

        @DistributedLock(key = "a:#id", leaseTime = "0s")
        public void badLease(String id) {}

        @DistributedLock(key = "item:#{#id")
        public void badKey(String id) {}

        @DistributedLock(key = "a:#id", onFailure = OnFailure.SKIP)
        public int skipPrimitive(String id) {
            return 1;
        }

        @DistributedLock(key = "a:#id", fallback = "nowhere")
        public void missingFallback(String id) {}

        @DistributedLock(key = "a:#id", fallback = "text")
        public Integer wrongFallback(String id) {
            return 1;
        }

        String text(String id) {
            return id;
        }

        @DistributedLock(key = "a:#id", waitTime = "${no.such.property}")
        public void missingPlaceholder(String id) {}
    }

    static class Quotas {
        @Semaphore(key = "q:#id", limit = 0)
        public void zeroLimit(String id) {}

        @Semaphore(key = "q:#id", limit = 3, limitExpression = "#{2}")
        public void bothLimits(String id) {}
    }

    @Configuration(proxyBeanMethods = false)
    static class BadBeans {
        @Bean
        Orders orders() {
            return new Orders();
        }

        @Bean
        Quotas quotas() {
            return new Quotas();
        }
    }

    interface Greeter {
        @DistributedLock(key = "greet")
        String greet(String name);
    }

    static class PlainGreeter implements Greeter {
        @Override
        public String greet(String name) {
            return "hi " + name;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class InterfaceOnly {
        @Bean
        Greeter greeter() {
            return new PlainGreeter();
        }
    }

    static class Good {
        @DistributedLock(key = "g:#id", waitTime = "${app.wait}", leaseTime = "PT10S")
        public void lock(String id) {}

        @Semaphore(key = "s:#id", limitExpression = "${app.limit}", waitTime = "500ms")
        public void limited(String id) {}

        @DistributedLock
        public int defaultKey() {
            return 1;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class GoodBeans {
        @Bean
        Good good() {
            return new Good();
        }
    }
}
