package dev.parley.local.dynamodb.model;

import dev.parley.local.dynamodb.DynamoDbError;
import java.math.BigDecimal;
import java.math.MathContext;

/**
 * DynamoDB's number type: exact decimals of up to 38 significant digits, with magnitudes from
 * 1E-130 to below 1E+126. Values are kept stripped of trailing zeros, so equal numbers are equal
 * objects, and written back without exponent, as DynamoDB returns them.
 */
public final class Numbers {
    public static final int MAX_DIGITS = 38;
    private static final BigDecimal MAX_MAGNITUDE = new BigDecimal("1E+126");
    private static final BigDecimal MIN_MAGNITUDE = new BigDecimal("1E-130");

    private Numbers() {
    }

    public static BigDecimal parse(String text) {
        if (text == null || text.isEmpty() || !looksNumeric(text)) {
            throw DynamoDbError.validation("A value provided cannot be converted into a number");
        }
        BigDecimal value;
        try {
            value = new BigDecimal(text);
        } catch (NumberFormatException | ArithmeticException e) {
            throw DynamoDbError.validation("A value provided cannot be converted into a number");
        }
        return check(value);
    }

    /** Checks range and precision of a computed or parsed value and returns its canonical form. */
    public static BigDecimal check(BigDecimal value) {
        BigDecimal stripped = value.signum() == 0 ? BigDecimal.ZERO : value.stripTrailingZeros();
        if (stripped.precision() > MAX_DIGITS) {
            throw DynamoDbError.validation("Attempting to store more than 38 significant digits in a Number");
        }
        BigDecimal magnitude = stripped.abs();
        if (magnitude.compareTo(MAX_MAGNITUDE) >= 0) {
            throw DynamoDbError.validation("Number overflow. Attempting to store a number with magnitude larger than supported range");
        }
        if (stripped.signum() != 0 && magnitude.compareTo(MIN_MAGNITUDE) < 0) {
            throw DynamoDbError.validation("Number underflow. Attempting to store a number with magnitude smaller than supported range");
        }
        return stripped;
    }

    public static BigDecimal add(BigDecimal a, BigDecimal b) {
        return check(a.add(b, MathContext.UNLIMITED));
    }

    public static BigDecimal subtract(BigDecimal a, BigDecimal b) {
        return check(a.subtract(b, MathContext.UNLIMITED));
    }

    public static String format(BigDecimal value) {
        return value.toPlainString();
    }

    /** Plain decimal or scientific notation, with an optional sign; no spaces, hex, NaN or Infinity. */
    private static boolean looksNumeric(String text) {
        int i = 0;
        int n = text.length();
        if (text.charAt(i) == '+' || text.charAt(i) == '-') {
            i++;
        }
        int digits = 0;
        while (i < n && Character.isDigit(text.charAt(i)) && text.charAt(i) < 128) {
            i++;
            digits++;
        }
        if (i < n && text.charAt(i) == '.') {
            i++;
            while (i < n && Character.isDigit(text.charAt(i)) && text.charAt(i) < 128) {
                i++;
                digits++;
            }
        }
        if (digits == 0) {
            return false;
        }
        if (i < n && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
            i++;
            if (i < n && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
                i++;
            }
            int exponentDigits = 0;
            while (i < n && Character.isDigit(text.charAt(i)) && text.charAt(i) < 128) {
                i++;
                exponentDigits++;
            }
            if (exponentDigits == 0 || exponentDigits > 9) {
                return false;
            }
        }
        return i == n;
    }
}
