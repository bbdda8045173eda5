package dev.turnstile.spring.internal.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.turnstile.annotation.Enforce;
import dev.turnstile.redis.LeaseKind;
import dev.turnstile.spring.aop.Refusal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** The observed refusals' INFO line (at most once a minute per guard) and which guards enforce. */
@ExtendWith(OutputCaptureExtension.class)
class ObservedRefusalsTests {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final ObservedRefusals refusals = new ObservedRefusals(this.now::get);

    @Test
    void oneLinePerGuardAtMostOnceAMinuteWithTheCountSinceTheLastLine(CapturedOutput output) {
        this.refusals.refused(LeaseKind.SEMAPHORE, "partner:#account", Refusal.FULL);
        assertThat(lines(output))
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .contains("INFO")
                        .contains(
                                "The semaphore 'partner:#account' only observes: it would have refused 1 call(s) (full 1)"
                                        + " since the start"));

        for (int i = 0; i < 4; i++) {
            advance(Duration.ofSeconds(10));
            this.refusals.refused(LeaseKind.SEMAPHORE, "partner:#account", Refusal.FULL);
        }
        this.refusals.refused(LeaseKind.SEMAPHORE, "partner:#account", Refusal.UNAVAILABLE);
        this.refusals.refused(LeaseKind.LOCK, "item:#id", Refusal.BUSY);
        assertThat(lines(output))
                .as("40 s later: the semaphore has not logged again, the lock logs its first")
                .hasSize(2)
                .last()
                .satisfies(line -> assertThat(line)
                        .contains("The lock 'item:#id' only observes")
                        .contains("(busy 1)"));

        advance(Duration.ofSeconds(20));
        this.refusals.refused(LeaseKind.SEMAPHORE, "partner:#account", Refusal.FULL);
        assertThat(lines(output))
                .as("a minute after its first line, the semaphore's second counts the six since")
                .hasSize(3)
                .last()
                .satisfies(line -> assertThat(line)
                        .contains("The semaphore 'partner:#account' only observes: it would have refused 6 call(s)"
                                + " (full 5, unavailable 1) since its last line"));
    }

    @Test
    void namesListedInConfigurationWinOverTheAnnotationWhichWinsOverTheDefault() {
        Enforcement enforcement = new Enforcement(false, List.of("partner:#account", "a:#x"), List.of("report:#day"));
        assertThat(enforcement.resolve("partner:#account", List.of("partner:#account"), Enforce.OBSERVE))
                .isEqualTo(Enforce.ENFORCE);
        assertThat(enforcement.resolve("report:#day", List.of("report:#day"), Enforce.ENFORCE))
                .isEqualTo(Enforce.OBSERVE);
        assertThat(enforcement.resolve("export:#id", List.of("export:#id"), Enforce.ENFORCE))
                .isEqualTo(Enforce.ENFORCE);
        assertThat(enforcement.resolve("export:#id", List.of("export:#id"), Enforce.DEFAULT))
                .as("turnstile.enforce=false")
                .isEqualTo(Enforce.OBSERVE);
        assertThat(enforcement.resolve("a:#x,b:#y", List.of("a:#x", "b:#y"), Enforce.DEFAULT))
                .as("a multi-key lock is named by one of its templates too")
                .isEqualTo(Enforce.ENFORCE);
        assertThat(Enforcement.DEFAULT.resolve("shop.Jobs.run", List.of(), Enforce.DEFAULT))
                .isEqualTo(Enforce.ENFORCE);
        assertThat(new Enforcement(true, List.of("partner:#account"), List.of()).listedNames())
                .containsExactly("partner:#account");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new Enforcement(true, List.of("a:#x "), List.of(" a:#x")))
                .withMessage("turnstile.enforced-names and turnstile.observed-names both list [a:#x];"
                        + " list each name in one of them");
    }

    private void advance(Duration duration) {
        this.now.addAndGet(duration.toNanos());
    }

    private static List<String> lines(CapturedOutput output) {
        return output.getAll()
                .lines()
                .filter(line -> line.contains("only observes"))
                .toList();
    }
}
