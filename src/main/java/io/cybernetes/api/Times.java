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
}
