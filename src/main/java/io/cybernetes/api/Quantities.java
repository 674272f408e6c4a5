package io.cybernetes.api;

import io.fabric8.kubernetes.api.model.Quantity;

import java.math.BigDecimal;

/**
 * Resource quantities ({@code 500m}, {@code 1.5}, {@code 128Mi}, {@code 1G}) as exact
 * decimals, and back in the canonical short form Kubernetes prints: binary suffixes for
 * whole multiples of 1024, milli-units for fractions.
 */
public final class Quantities {

    private static final String[] BINARY = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    private static final BigDecimal KI = BigDecimal.valueOf(1024);

    private Quantities() {
    }

    /** The value of a quantity string; {@link ApiException} 400 when it is not one. */
    public static BigDecimal parse(String text) {
        try {
            return Quantity.getAmountInBytes(new Quantity(text)).stripTrailingZeros();
        } catch (RuntimeException e) {
            throw ApiException.badRequest("quantities must match the regular expression"
                    + " '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': \"" + text + "\"");
        }
    }

    /** Whether the text is a valid quantity. */
    public static boolean isValid(String text) {
        try {
            parse(text);
            return true;
        } catch (ApiException e) {
            return false;
        }
    }

    public static String format(BigDecimal value) {
        BigDecimal v = value.stripTrailingZeros();
        if (v.signum() == 0) {
            return "0";
        }
        if (v.scale() > 0) {
            BigDecimal milli = v.movePointRight(3);
            return milli.scale() <= 0 ? milli.toBigInteger() + "m" : v.toPlainString();
        }
        int i = -1;
        BigDecimal cur = v;
        while (i + 1 < BINARY.length && cur.remainder(KI).signum() == 0 && cur.abs().compareTo(KI) >= 0) {
            cur = cur.divide(KI);
            i++;
        }
        return i < 0 ? v.toBigInteger().toString() : cur.toBigInteger() + BINARY[i];
    }
}
