package dev.turnstile.sample.web;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.ElementType.RECORD_COMPONENT;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import java.math.BigDecimal;

/**
 * A required amount of money (funds, a price): a whole number from {@link #min()} to {@link
 * #max()}. A 400 names the field and says the one rule it broke: it is required, it must be a whole
 * number ({@code 1.5}), or it is out of range ({@code -1}, {@code 99999999999999999999}, {@code
 * 1e30}). Read as a {@link BigDecimal}, so any JSON number reaches the check whatever its size.
 */
@Constraint(validatedBy = Amount.Validator.class)
@Documented
@Retention(RUNTIME)
@Target({FIELD, PARAMETER, RECORD_COMPONENT})
@interface Amount {

    /** The least amount allowed. */
    long min();

    /** The largest amount allowed. */
    long max() default MarketplaceController.MAX_FUNDS;

    String message() default "must be a whole number";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    /** Says which rule an amount broke, one message per field. */
    final class Validator implements ConstraintValidator<Amount, BigDecimal> {

        private long min;
        private long max;

        @Override
        public void initialize(Amount amount) {
            this.min = amount.min();
            this.max = amount.max();
        }

        @Override
        public boolean isValid(BigDecimal value, ConstraintValidatorContext context) {
            String broken = broken(value, this.min, this.max);
            if (broken == null) {
                return true;
            }
            context.disableDefaultConstraintViolation();
            context.buildConstraintViolationWithTemplate(broken).addConstraintViolation();
            return false;
        }

        /** The rule {@code value} breaks, as a 400 says it after the field's name, or null. */
        static String broken(BigDecimal value, long min, long max) {
            if (value == null) {
                return "is required";
            }
            if (value.signum() != 0 && value.stripTrailingZeros().scale() > 0) {
                return "must be a whole number";
            }
            if (value.compareTo(BigDecimal.valueOf(min)) < 0 || value.compareTo(BigDecimal.valueOf(max)) > 0) {
                return "is out of range: it must be from " + min + " to " + max;
            }
            return null;
        }
    }
}
