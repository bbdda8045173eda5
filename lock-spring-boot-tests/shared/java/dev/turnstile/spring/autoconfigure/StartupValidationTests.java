package dev.turnstile.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.annotation.OnFailure;
import dev.turnstile.annotation.Semaphore;
import dev.turnstile.test.redis.RedisServerExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import dev.turnstile.spring.BootLine;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Scope;
import org.springframework.context.annotation.ScopedProxyMode;

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
            assertThat(problems.problems()).hasSize(12);
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
                    .contains("Orders.outOfRange(String): 'waitTime' \"400d\" is longer than 365 days")
                    .contains("'leaseTime' \"500us\" is below 1ms, the resolution Redis counts time in")
                    .contains("Orders.holdsLongerThanItsLease(): 'holdAtLeast' \"30s\" is longer than 'leaseTime'"
                            + " \"10s\": a lock cannot be held longer than its lease")
                    .contains("Orders.waitsThroughItsHold(): 'waitTime' \"2s\" is not shorter than 'holdAtLeast'"
                            + " \"2s\"")
                    .contains("Quotas.zeroLimit(String): 'limit' must be at least 1 but was 0")
                    .contains("Quotas.bothLimits(String): give 'limit' or 'limitExpression', not both");

            FailureAnalysis analysis = new TurnstileFailureAnalyzer().analyze(failure);
            assertThat(analysis.getDescription()).contains("12 @DistributedLock/@Semaphore method(s) are misconfigured");
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

    @Test
    void aKeyConditionOrLimitThatNamesNoParameterFailsTheStartNamingTheNearestOne() {
        this.runner.withBean(Typos.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(configurationFailure(context))
                    .hasMessageContaining("Typos.process(String): key template 'order:#ordrId' reads #ordrId,"
                            + " which is not a parameter; did you mean #orderId? Its parameters are #orderId (#p0)")
                    .hasMessageContaining("Typos.debit(String, long): 'condition' expression '#amout > 0' reads"
                            + " #amout, which is not a parameter; did you mean #amount?")
                    .hasMessageContaining("Typos.call(String, int): 'limitExpression' expression '#{#limt}' reads #limt")
                    .hasMessageContaining("did you mean #limit?")
                    .hasMessageContaining("Typos.beyond(String): key template 'x:#p1:#p01' reads #p1, which is not a"
                            + " parameter; Its parameters are #id (#p0)")
                    .hasMessageContaining("key template 'x:#p1:#p01' reads #p01, which is not a parameter;")
                    .hasMessageContaining("Typos.unrelated(String): key template 'x:#customerNumber' reads"
                            + " #customerNumber, which is not a parameter; Its parameters are #id (#p0)");
            assertThat(configurationFailure(context).problems()).hasSize(5);
        });
    }

    @Test
    void aLazyBeanFailsTheStartWithTheSameMessageAsAnEagerOne() {
        List<String> eager = new ArrayList<>();
        this.runner.withBean(Typos.class).run(context -> eager.addAll(configurationFailure(context).problems()));
        assertThat(eager).hasSize(5);
        this.runner.withUserConfiguration(LazyTypos.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(configurationFailure(context).problems()).isEqualTo(eager);
        });
    }

    @Test
    void lazyInitializationOfEveryBeanStillFailsTheStartWithTheSameMessage() {
        List<String> eager = new ArrayList<>();
        this.runner.withBean(Typos.class).run(context -> eager.addAll(configurationFailure(context).problems()));
        TyposApplication.created.set(0);
        SpringApplicationBuilder application = new SpringApplicationBuilder(TyposApplication.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "spring.main.lazy-initialization=true",
                        "spring.main.banner-mode=off",
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port());
        Throwable failure = catchThrowable(() -> application.run().close());
        assertThat(configurationFailure(failure).problems()).isEqualTo(eager);
        assertThat(TyposApplication.created).as("the lazy bean was not created to be checked").hasValue(0);
    }

    @Test
    void aLazyBeanIsCheckedWithoutBeingCreated() {
        this.runner
                .withUserConfiguration(LazyGoodBeans.class)
                .withPropertyValues("app.wait=250ms", "app.limit=3")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBeanFactory().containsSingleton("good"))
                            .as("created by startup")
                            .isFalse();
                    context.getBean(Good.class).lock("1");
                    assertThat(context.getBeanFactory().containsSingleton("good")).isTrue();
                });
    }

    @Test
    void aScopedProxysTargetIsCheckedAtStartup() {
        this.runner.withUserConfiguration(ScopedTypos.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(configurationFailure(context).problems())
                    .hasSize(5)
                    .anySatisfy(problem -> assertThat(problem).startsWith("Typos.process(String): key template"));
        });
    }

    @Test
    void theProductOfAFactoryBeanIsCheckedAtStartup() {
        this.runner.withUserConfiguration(TyposFromFactory.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(configurationFailure(context).problems())
                    .hasSize(5)
                    .anySatisfy(problem -> assertThat(problem).startsWith("Typos.process(String): key template"));
        });
    }

    @Test
    void aLazyBeanDeclaredAsAnInterfaceFailsWhenItIsCreatedNotAtItsFirstCall() {
        this.runner.withUserConfiguration(LazyInterfaceTypo.class).run(context -> {
            assertThat(context).as("its class is only known once created").hasNotFailed();
            assertThatThrownBy(() -> context.getBean(Shipping.class))
                    .satisfies(failure -> assertThat(configurationFailure(failure).problems())
                            .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                            .startsWith("TypoShipping.ship(String): key template 'order:#ordrId' reads #ordrId,"
                                    + " which is not a parameter; did you mean #orderId?"));
        });
    }

    @Test
    void positionalVariablesRootAndThisAlwaysResolve() {
        this.runner.withBean(Positional.class).run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void codeCompiledWithoutParametersIsToldToUsePositions() throws Exception {
        Class<?> compiled = CompiledWithoutParameters.compile(
                "legacy.Billing",
                "package legacy;\n"
                        + "public class Billing {\n"
                        + "  @dev.turnstile.annotation.DistributedLock(key = \"invoice:#invoiceId\")\n"
                        + "  public void settle(String invoiceId, long cents) {}\n"
                        + "  @dev.turnstile.annotation.DistributedLock(key = \"invoice:#p0\")\n"
                        + "  public void refund(String invoiceId) {}\n"
                        + "}\n");
        assertThat(compiled.getMethod("settle", String.class, long.class).getParameters()[0].isNamePresent())
                .isFalse();
        this.runner
                .withClassLoader(compiled.getClassLoader())
                .withBean("billing", Object.class, () -> newInstance(compiled))
                .run(context -> {
            assertThat(context).hasFailed();
            assertThat(configurationFailure(context).problems())
                    .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                    .contains("Billing.settle(String, long): key template 'invoice:#invoiceId' reads #invoiceId,"
                            + " but its class was compiled without -parameters")
                    .contains("use #p0, #p1, or compile with -parameters");
        });
    }

    private static TurnstileConfigurationException configurationFailure(
            org.springframework.boot.test.context.assertj.AssertableApplicationContext context) {
        return configurationFailure(context.getStartupFailure());
    }

    private static TurnstileConfigurationException configurationFailure(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof TurnstileConfigurationException configuration) {
                return configuration;
            }
        }
        throw new AssertionError("Expected a TurnstileConfigurationException", failure);
    }

    private static Object newInstance(Class<?> type) {
        try {
            return type.getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    public static class Typos {
        @DistributedLock(key = "order:#ordrId")
        public void process(String orderId) {}

        @DistributedLock(key = "account:#account", condition = "#amout > 0")
        public void debit(String account, long amount) {}

        @Semaphore(key = "partner:#partner", limitExpression = "#{#limt}")
        public void call(String partner, int limit) {}

        @DistributedLock(key = "x:#p1:#p01")
        public void beyond(String id) {}

        @DistributedLock(key = "x:#customerNumber")
        public void unrelated(String id) {}
    }

    @Configuration(proxyBeanMethods = false)
    static class LazyTypos {
        @Bean
        @Lazy
        Typos typos() {
            return new Typos();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class TyposApplication {
        static final AtomicInteger created = new AtomicInteger();

        @Bean
        Typos typos() {
            created.incrementAndGet();
            return new Typos();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class LazyGoodBeans {
        @Bean
        @Lazy
        Good good() {
            return new Good();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ScopedTypos {
        @Bean
        @Scope(value = ConfigurableBeanFactory.SCOPE_PROTOTYPE, proxyMode = ScopedProxyMode.TARGET_CLASS)
        Typos typos() {
            return new Typos();
        }
    }

    static class TyposFactoryBean implements FactoryBean<Typos> {
        @Override
        public Typos getObject() {
            return new Typos();
        }

        @Override
        public Class<?> getObjectType() {
            return Typos.class;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TyposFromFactory {
        @Bean
        TyposFactoryBean typos() {
            return new TyposFactoryBean();
        }
    }

    public interface Shipping {
        void ship(String orderId);
    }

    public static class TypoShipping implements Shipping {
        @Override
        @DistributedLock(key = "order:#ordrId")
        public void ship(String orderId) {}
    }

    @Configuration(proxyBeanMethods = false)
    static class LazyInterfaceTypo {
        @Bean
        @Lazy
        Shipping shipping() {
            return new TypoShipping();
        }
    }

    public static class Positional {
        @DistributedLock(key = "order:#p0:#a1", condition = "#root.methodName == 'ship' && #this != null")
        public void ship(String orderId, int box) {}

        @Semaphore(key = "partner:#{#root.args[0]}", limitExpression = "#{#limit + 1}")
        public void call(String partner, int limit) {}
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

        @DistributedLock(key = "a:#id", leaseTime = "500us", waitTime = "400d")
        public void outOfRange(String id) {}

        @DistributedLock(key = "report", leaseTime = "10s", holdAtLeast = "30s", onFailure = OnFailure.SKIP)
        public void holdsLongerThanItsLease() {}

        @DistributedLock(key = "report", holdAtLeast = "2s", waitTime = "2s", onFailure = OnFailure.SKIP)
        public void waitsThroughItsHold() {}
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
