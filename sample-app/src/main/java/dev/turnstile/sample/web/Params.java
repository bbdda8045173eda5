package dev.turnstile.sample.web;

import java.math.BigDecimal;

/**
 * Whole-number query parameters ({@code limit}, {@code calls}, {@code secondsPerRow}), read as
 * text so that a 400 can say the one rule a value broke: not a whole number ({@code abc}, {@code
 * 1.5}) or out of range ({@code 0}, {@code 99999999999}), with the range.
 */
public final class Params {

    private Params() {}

    /**
     * Returns {@code value} as a number from {@code min} to {@code max}.
     *
     * @throws InvalidInputException naming {@code name} and its rule
     */
    public static int whole(String name, String value, int min, int max) {
        BigDecimal number;
        try {
            number = new BigDecimal(value.trim());
        } catch (NumberFormatException e) {
            throw new InvalidInputException(name, "'" + name + "' must be a whole number.");
        }
        String broken = Amount.Validator.broken(number, min, max);
        if (broken != null) {
            throw new InvalidInputException(name, "'" + name + "' " + broken + ".");
        }
        return number.intValueExact();
    }
}
