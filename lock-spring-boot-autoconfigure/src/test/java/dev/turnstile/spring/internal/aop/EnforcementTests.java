package dev.turnstile.spring.internal.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.turnstile.annotation.Enforce;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lists of names win over the annotation, which wins over the default. */
class EnforcementTests {

    private static final List<String> TEMPLATES = List.of("from:#from", "to:#to");
    private static final String NAME = "from:#from,to:#to";

    @Test
    void theDefaultEnforcesUnlessTheAnnotationObserves() {
        assertThat(Enforcement.DEFAULT.resolve(NAME, TEMPLATES, Enforce.DEFAULT))
                .isEqualTo(Enforce.ENFORCE);
        assertThat(Enforcement.DEFAULT.resolve(NAME, TEMPLATES, Enforce.OBSERVE))
                .isEqualTo(Enforce.OBSERVE);
    }

    @Test
    void anObservingDefaultGivesWayToTheAnnotation() {
        Enforcement observing = new Enforcement(false, List.of(), List.of());
        assertThat(observing.resolve(NAME, TEMPLATES, Enforce.DEFAULT)).isEqualTo(Enforce.OBSERVE);
        assertThat(observing.resolve(NAME, TEMPLATES, Enforce.ENFORCE)).isEqualTo(Enforce.ENFORCE);
    }

    @Test
    void aListedNameWinsOverTheAnnotation() {
        Enforcement enforcement = new Enforcement(true, List.of(NAME), List.of("item:#id"));
        assertThat(enforcement.resolve(NAME, TEMPLATES, Enforce.OBSERVE)).isEqualTo(Enforce.ENFORCE);
        assertThat(enforcement.resolve("item:#id", List.of("item:#id"), Enforce.ENFORCE))
                .isEqualTo(Enforce.OBSERVE);
    }

    @Test
    void oneTemplateOfAMultiKeyLockListsTheWholeGuard() {
        Enforcement enforcement = new Enforcement(true, List.of(), List.of(" to:#to "));
        assertThat(enforcement.resolve(NAME, TEMPLATES, Enforce.ENFORCE)).isEqualTo(Enforce.OBSERVE);
    }

    @Test
    void aGuardMatchedByBothListsThroughTwoTemplatesEnforces() {
        Enforcement enforcement = new Enforcement(false, List.of("from:#from"), List.of("to:#to"));
        assertThat(enforcement.resolve(NAME, TEMPLATES, Enforce.OBSERVE)).isEqualTo(Enforce.ENFORCE);
    }

    @Test
    void aNameInBothListsIsRefused() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new Enforcement(true, List.of("a", "b "), List.of(" b", "c")))
                .withMessage("turnstile.enforced-names and turnstile.observed-names both list [b];"
                        + " list each name in one of them");
    }

    @Test
    void blankNamesAreIgnoredAndTheRestListedTrimmedAndSorted() {
        Enforcement enforcement = new Enforcement(true, List.of("z", " ", ""), List.of(" a "));
        assertThat(enforcement.listedNames()).containsExactly("a", "z");
    }
}
