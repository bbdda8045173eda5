package dev.turnstile.sample.web;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

/**
 * A required price: a whole number from 1 to {@link MarketplaceController#MAX_FUNDS}; a 400 names
 * the field and the rule it broke.
 */
@NotNull(message = "is required")
@Positive(message = "must be positive")
@Max(value = MarketplaceController.MAX_FUNDS, message = "must be at most " + MarketplaceController.MAX_FUNDS)
@Constraint(validatedBy = {})
@Documented
@Retention(RUNTIME)
@Target({FIELD, METHOD, PARAMETER})
@interface Price {

    String message() default "must be positive";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
