package io.cybernetes.api;

import java.time.Duration;
import java.time.Instant;

/**
 * Time arithmetic on values clients choose (grace periods, toleration seconds, deadlines)
 * that never overflows: a sum past what an RFC 3339 timestamp can say is the latest one
 * it can say, year 9999, which for a cluster is "never".
 */
public final class Times {

    /** The latest instant a Kubernetes timestamp can hold. */
    public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");
    private static final Duration FOREVER = Duration.between(Instant.EPOCH, LATEST);

    private Times() {
    }

    /** {@code t} plus {@code seconds}, at most {@link #LATEST}; negative seconds count as none. */
    public static Instant plusSeconds(Instant t, long seconds) {
        return plus(t, Duration.ofSeconds(Math.max(0, seconds)));
    }

    /** {@code t} plus {@code d}, at most {@link #LATEST}. */
    public static Instant plus(Instant t, Duration d) {
        if (d.compareTo(Duration.between(t, LATEST)) >= 0) {
            return LATEST;
        }
        return t.plus(d);
    }

    /** A duration of so many seconds, no longer than from the epoch to {@link #LATEST} (so its millis fit a long). */
    public static Duration ofSeconds(long seconds) {
        Duration d = Duration.ofSeconds(Math.max(0, seconds));
        return d.compareTo(FOREVER) > 0 ? FOREVER : d;
    }

    private static final java.util.regex.Pattern GO_PART = java.util.regex.Pattern.compile(
            "(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|\u00b5s|ms|s|m|h)");

    /**
     * A duration as Go writes and reads it ({@code time.ParseDuration}): {@code 1h2m3.5s},
     * {@code 15.000123s}, {@code 250ms}, with an optional sign; empty when the text is not one.
     * (fabric8's Duration reads fractional seconds wrongly: {@code 1.5s} as five seconds.)
     */
    public static java.util.Optional<Duration> parseGoDuration(String text) {
        if (text == null || text.isEmpty()) {
            return java.util.Optional.empty();
        }
        boolean negative = text.startsWith("-");
        String rest = text.startsWith("-") || text.startsWith("+") ? text.substring(1) : text;
        if (rest.equals("0")) {
            return java.util.Optional.of(Duration.ZERO);
        }
        java.util.regex.Matcher m = GO_PART.matcher(rest);
        java.math.BigDecimal nanos = java.math.BigDecimal.ZERO;
        int at = 0;
        while (at < rest.length()) {
            if (!m.find(at) || m.start() != at) {
                return java.util.Optional.empty();
            }
            long unit = switch (m.group(2)) {
                case "ns" -> 1L;
                case "us", "\u00b5s" -> 1_000L;
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                default -> 3_600_000_000_000L;
            };
            nanos = nanos.add(new java.math.BigDecimal(m.group(1)).multiply(java.math.BigDecimal.valueOf(unit)));
            at = m.end();
        }
        if (at == 0) {
            return java.util.Optional.empty();
        }
        long n = nanos.setScale(0, java.math.RoundingMode.DOWN).longValue();
        return java.util.Optional.of(Duration.ofNanos(negative ? -n : n));
    }
}
