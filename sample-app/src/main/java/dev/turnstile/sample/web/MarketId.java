package dev.turnstile.sample.web;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

/**
 * A required id of a user or an item, following {@link Ids#RULE}; a 400 names the field and says
 * which of the two it broke.
 */
@NotNull(message = "is required")
@Pattern(regexp = Ids.PATTERN, message = Ids.RULE)
@Constraint(validatedBy = {})
@Documented
@Retention(RUNTIME)
@Target({FIELD, METHOD, PARAMETER})
@interface MarketId {

    String message() default Ids.RULE;

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
