package dev.turnstile.spring.internal.actuate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when Turnstile or its health indicator is switched off ({@code turnstile.enabled=false},
 * {@code management.health.turnstile.enabled=false}, or {@code management.health.defaults.enabled=false}
 * without turning it on) while a health group includes {@code turnstile}
 * ({@code management.endpoint.health.group.readiness.include=readinessState,turnstile}): then each
 * Boot line registers a {@code turnstile} contributor that is up and says it is switched off, so
 * the switch does not stop the application with Boot's "Included health contributor 'turnstile' in
 * group 'readiness' does not exist".
 */
public final class TurnstileHealthSwitchedOff extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Environment environment = context.getEnvironment();
        String off = switchedOffBy(environment);
        if (off == null) {
            return ConditionOutcome.noMatch("the turnstile health indicator is on");
        }
        List<String> groups = groupsNamingTurnstile(Binder.get(environment));
        return groups.isEmpty()
                ? ConditionOutcome.noMatch(off + ", and no health group includes turnstile")
                : ConditionOutcome.match(off + ", and health groups " + groups + " include turnstile");
    }

    /** Returns the property that switches the indicator off, as {@code name=value}, or null if none does. */
    public static @Nullable String switchedOffBy(Environment environment) {
        if (!environment.getProperty("turnstile.enabled", Boolean.class, true)) {
            return "turnstile.enabled=false";
        }
        Boolean health = environment.getProperty("management.health.turnstile.enabled", Boolean.class);
        if (health != null) {
            return health ? null : "management.health.turnstile.enabled=false";
        }
        return environment.getProperty("management.health.defaults.enabled", Boolean.class, true)
                ? null
                : "management.health.defaults.enabled=false";
    }

    /** Returns the details of the contributor that stands in for the switched-off indicator. */
    public static Map<String, Object> details(Environment environment) {
        return Map.of("switchedOff", String.valueOf(switchedOffBy(environment)));
    }

    private static List<String> groupsNamingTurnstile(Binder binder) {
        Map<String, Group> groups = binder.bind(
                        "management.endpoint.health.group", Bindable.mapOf(String.class, Group.class))
                .orElse(Map.of());
        List<String> naming = new ArrayList<>();
        groups.forEach((name, group) -> {
            if (group.getInclude().contains("turnstile")) {
                naming.add(name);
            }
        });
        return naming;
    }

    /** The part of a health group this condition reads. */
    public static final class Group {

        private Set<String> include = Set.of();

        /** Returns the contributors the group includes. */
        public Set<String> getInclude() {
            return this.include;
        }

        /** Sets the contributors the group includes. */
        public void setInclude(Set<String> include) {
            this.include = include;
        }
    }
}
