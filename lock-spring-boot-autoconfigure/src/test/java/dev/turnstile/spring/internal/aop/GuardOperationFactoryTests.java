package dev.turnstile.spring.internal.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.turnstile.annotation.DistributedLock;
import dev.turnstile.annotation.Enforce;
import dev.turnstile.annotation.OnFailure;
import dev.turnstile.annotation.Semaphore;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.spring.aop.InvalidGuardException;
import dev.turnstile.spring.internal.key.KeyExpressionEvaluator;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/** What {@code @DistributedLock} and {@code @Semaphore} are read into, and what is refused at startup. */
class GuardOperationFactoryTests {

    private static final Duration LOCK_WAIT = Duration.ofSeconds(3);
    private static final Duration SEMAPHORE_WAIT = Duration.ofMillis(250);

    @SuppressWarnings("unused")
    static class Service {

        @DistributedLock(key = "item:#itemId")
        public void plain(String itemId) {}

        @DistributedLock(key = "item:#itemId", waitTime = "${app.wait}", leaseTime = "${app.lease:20s}")
        public void placeholders(String itemId) {}

        @DistributedLock(key = "report", holdAtLeast = "10s")
        public void heldOn() {}

        @DistributedLock(key = "report", holdAtLeast = "10s", leaseTime = "5s", waitTime = "-1s")
        public void threeMistakes() {}

        @DistributedLock(key = "report", holdAtLeast = "10s", waitTime = "10s")
        public void waitsForItsOwnHold() {}

        @DistributedLock(leaseTime = "soon")
        public void notADuration() {}

        @DistributedLock(key = "item:#nope")
        public void unknownVariable(String itemId) {}

        @DistributedLock(
                key = {"from:#from", "to:#to"},
                enforce = Enforce.OBSERVE)
        public void twoKeys(String from, String to) {}

        @DistributedLock(key = "item:#itemId", onFailure = OnFailure.SKIP)
        public int skipsAnInt(String itemId) {
            return 0;
        }

        @DistributedLock(key = "item:#itemId", fallback = "missing")
        public String withoutItsFallback(String itemId) {
            return itemId;
        }

        @DistributedLock(key = "item:#itemId", fallback = "busy")
        public String withFallback(String itemId) {
            return itemId;
        }

        public String busy(String itemId, Throwable failure) {
            return "busy";
        }

        @Semaphore(key = "partner:#partner", limit = 5)
        public void capped(String partner) {}

        @Semaphore(key = "partner:#partner", limit = 5, limitExpression = "3")
        public void twoLimits(String partner) {}

        @Semaphore(key = "partner:#partner", limitExpression = "${app.limit}")
        public void limitFromProperty(String partner) {}

        @Semaphore(key = "partner:#partner", limitExpression = "#limit")
        public void limitPerCall(String partner, int limit) {}

        @Semaphore(key = "partner:#partner")
        public void noLimit(String partner) {}

        @DistributedLock(key = "both")
        @Semaphore(key = "both", limit = 2)
        public void both() {}
    }

    private final StandardEnvironment environment = new StandardEnvironment();

    private GuardOperationFactory factory(Enforcement enforcement) {
        this.environment
                .getPropertySources()
                .addFirst(new MapPropertySource("test", Map.of("app.wait", "750ms", "app.limit", "4")));
        return new GuardOperationFactory(
                this.environment,
                new KeyExpressionEvaluator(null),
                LOCK_WAIT,
                SEMAPHORE_WAIT,
                enforcement,
                getClass().getClassLoader());
    }

    private GuardOperation read(LeaseKind kind, String method) {
        return factory(Enforcement.DEFAULT).create(kind, method(method), Service.class);
    }

    private List<String> problems(LeaseKind kind, String method) {
        return assertThatExceptionOfType(InvalidGuardException.class)
                .isThrownBy(() -> read(kind, method))
                .satisfies(e -> assertThat(e.getMessage()).startsWith("Service." + method + "("))
                .actual()
                .problems();
    }

    private static Method method(String name) {
        return Arrays.stream(Service.class.getMethods())
                .filter(m -> m.getName().equals(name))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void aLockWithoutTimesWaitsTheConfiguredTimeAndLeavesTheLeaseToTheCore() {
        GuardOperation operation = read(LeaseKind.LOCK, "plain");
        assertThat(operation.kind()).isEqualTo(LeaseKind.LOCK);
        assertThat(operation.waitTime()).isEqualTo(LOCK_WAIT);
        assertThat(operation.leaseTime())
                .as("no lease given: the core's default applies")
                .isNull();
        assertThat(operation.name()).isEqualTo("item:#itemId");
        assertThat(operation.enforced()).isTrue();
        assertThat(operation.description()).isEqualTo("Service.plain(String)");
    }

    @Test
    void placeholdersAreResolvedWithTheirDefaults() {
        GuardOperation operation = read(LeaseKind.LOCK, "placeholders");
        assertThat(operation.waitTime()).isEqualTo(Duration.ofMillis(750));
        assertThat(operation.leaseTime()).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void aLockHeldOnAfterItsMethodDoesNotWaitUnlessTold() {
        GuardOperation operation = read(LeaseKind.LOCK, "heldOn");
        assertThat(operation.waitTime()).isZero();
        assertThat(operation.holdAfter(GuardOperation.Outcome.COMPLETED)).isEqualTo(Duration.ofSeconds(10));
        assertThat(operation.holdAfter(GuardOperation.Outcome.NOT_RUN)).isZero();
    }

    @Test
    void everyProblemOfOneAnnotationIsReportedAtOnce() {
        assertThat(problems(LeaseKind.LOCK, "threeMistakes"))
                .hasSize(2)
                .anySatisfy(p -> assertThat(p).startsWith("'waitTime' must be zero or positive but was \"-1s\""))
                .anySatisfy(p -> assertThat(p).startsWith("'holdAtLeast' \"10s\" is longer than 'leaseTime' \"5s\""));
    }

    @Test
    void aWaitAsLongAsTheHoldIsRefused() {
        assertThat(problems(LeaseKind.LOCK, "waitsForItsOwnHold"))
                .singleElement()
                .asString()
                .startsWith("'waitTime' \"10s\" is not shorter than 'holdAtLeast' \"10s\"");
    }

    @Test
    void aDurationThatDoesNotParseIsNamedWithTheFormsThatDo() {
        assertThat(problems(LeaseKind.LOCK, "notADuration"))
                .containsExactly("'leaseTime' \"soon\" is not a duration: use 500ms, 5s, PT5S or ${property:5s}");
    }

    @Test
    void aTemplateReadingAnUnknownVariableIsRefused() {
        assertThat(problems(LeaseKind.LOCK, "unknownVariable"))
                .singleElement()
                .asString()
                .contains("key template 'item:#nope'")
                .contains("nope");
    }

    @Test
    void aMultiKeyLockIsNamedByItsTemplatesJoined() {
        GuardOperation operation = read(LeaseKind.LOCK, "twoKeys");
        assertThat(operation.keyTemplates()).containsExactly("from:#from", "to:#to");
        assertThat(operation.name()).isEqualTo("from:#from,to:#to");
        assertThat(operation.enforced()).isFalse();
    }

    @Test
    void skipCannotProduceAPrimitive() {
        assertThat(problems(LeaseKind.LOCK, "skipsAnInt"))
                .singleElement()
                .asString()
                .startsWith("onFailure = SKIP cannot produce a int");
    }

    @Test
    void aMissingFallbackIsRefusedNamingTheSignatureToDeclare() {
        assertThat(problems(LeaseKind.LOCK, "withoutItsFallback"))
                .singleElement()
                .asString()
                .startsWith("fallback 'missing' not found: declare missing(String) on Service");
    }

    @Test
    void aFallbackWithTheFailureParameterIsFound() {
        Fallback fallback = read(LeaseKind.LOCK, "withFallback").fallback();
        assertThat(fallback).isNotNull();
        assertThat(fallback.method().getName()).isEqualTo("busy");
    }

    @Test
    void aSemaphoreWaitsItsOwnConfiguredTime() {
        GuardOperation operation = read(LeaseKind.SEMAPHORE, "capped");
        assertThat(operation.kind()).isEqualTo(LeaseKind.SEMAPHORE);
        assertThat(operation.waitTime()).isEqualTo(SEMAPHORE_WAIT);
        assertThat(operation.spec()).isEqualTo(new SemaphoreSpec(5, null, false));
    }

    @Test
    void aSemaphoreTakesOneLimitOnly() {
        assertThat(problems(LeaseKind.SEMAPHORE, "twoLimits"))
                .containsExactly("give 'limit' or 'limitExpression', not both");
        assertThat(problems(LeaseKind.SEMAPHORE, "noLimit"))
                .containsExactly("'limit' must be at least 1 but was 0 (or give a 'limitExpression')");
    }

    @Test
    void aLimitExpressionIsANumberFromAPropertyOrAnExpressionPerCall() {
        assertThat(read(LeaseKind.SEMAPHORE, "limitFromProperty").spec()).isEqualTo(new SemaphoreSpec(4, null, false));
        assertThat(read(LeaseKind.SEMAPHORE, "limitPerCall").spec()).isEqualTo(new SemaphoreSpec(0, "#limit", false));
    }

    @Test
    void theListsOfEnforcementWinOverTheAnnotation() {
        Enforcement enforcement = new Enforcement(true, List.of("to:#to"), List.of("item:#itemId"));
        GuardOperationFactory factory = factory(enforcement);
        assertThat(factory.create(LeaseKind.LOCK, method("twoKeys"), Service.class)
                        .enforced())
                .as("annotated OBSERVE, listed by one template as enforced")
                .isTrue();
        assertThat(factory.create(LeaseKind.LOCK, method("plain"), Service.class)
                        .enforced())
                .isFalse();
    }

    @Test
    void aMethodWithBothAnnotationsIsLockedFirst() {
        assertThat(GuardOperationFactory.kindsOf(method("both"), Service.class))
                .containsExactly(LeaseKind.LOCK, LeaseKind.SEMAPHORE);
        assertThat(GuardOperationFactory.kindsOf(method("busy"), Service.class)).isEmpty();
    }

    interface Annotated {
        @DistributedLock(key = "x")
        void run();
    }

    static class Implementation implements Annotated {
        @Override
        public void run() {}
    }

    @Test
    void anAnnotationOnAnInterfaceMethodOnlyIsReported() {
        assertThat(GuardOperationFactory.interfaceOnlyAnnotations(Implementation.class))
                .singleElement()
                .asString()
                .contains("the annotation on Annotated.run is not applied");
    }
}
