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

    /** Decimal exponents past this are refused: 10^1000 is beyond any resource, and larger ones cost time to expand. */
    private static final int MAX_EXPONENT = 1000;
    private static final java.util.regex.Pattern EXPONENT = java.util.regex.Pattern.compile(".*[eE]([-+]?[0-9]+)$");
    /** Past this a quantity is printed as mantissa and exponent, as Kubernetes prints {@code 1e400}. */
    private static final BigDecimal HUGE = BigDecimal.TEN.pow(30);

    /** The value of a quantity string; {@link ApiException} 400 when it is not one. */
    public static BigDecimal parse(String text) {
        java.util.regex.Matcher exponent = EXPONENT.matcher(text);
        if (exponent.matches() && (exponent.group(1).replaceFirst("^[-+]?0*", "").length() > 4
                || Math.abs(Integer.parseInt(exponent.group(1))) > MAX_EXPONENT)) {
            throw ApiException.badRequest("unable to parse quantity's suffix: the exponent of \"" + text
                    + "\" is beyond " + MAX_EXPONENT);
        }
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
        if (v.abs().compareTo(HUGE) >= 0) {
            return v.unscaledValue() + "e" + (-v.scale());
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
