package io.cybernetes.node;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The log of one run of a simulated container: a line when it starts, the lines its
 * {@link LogScript} prints while it runs, and a line with its exit code when it ends. Read as
 * the kubelet serves a log: from a time, the last lines, up to a number of bytes, with
 * timestamps, and followed until the run ends. Only the last {@code retained} lines are
 * kept, as a rotated log keeps its newest part.
 */
public final class ContainerLog {

    /** What to read, as the kubelet's containerLogs query asks. Null fields ask nothing. */
    public record Query(Instant since, Long tailLines, Long limitBytes, boolean timestamps, boolean follow) {
    }

    /** Go's RFC3339Nano: nanoseconds with trailing zeros left out, as the kubelet stamps log lines. */
    static final DateTimeFormatter RFC3339_NANO = new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd'T'HH:mm:ss").optionalStart()
            .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd().appendLiteral('Z')
            .toFormatter().withZone(ZoneOffset.UTC);

    private final Instant started;
    private final LogScript script;
    private final Map<String, String> vars;
    private final String container;
    private final int restart;
    private final long retained;
    private final Clock clock;
    private volatile Instant ended;
    private volatile Integer exitCode;

    ContainerLog(Instant started, LogScript script, Map<String, String> vars, int restart, long retained, Clock clock) {
        this.started = started;
        this.script = script;
        this.vars = Map.copyOf(vars);
        this.container = vars.getOrDefault("container", "");
        this.restart = restart;
        this.retained = Math.max(1, retained);
        this.clock = clock;
    }

    int restart() {
        return restart;
    }

    boolean ended() {
        return ended != null;
    }

    /** The run ended with the code at the time (the first end counts). */
    synchronized void end(int code, Instant at) {
        if (ended == null) {
            exitCode = code;
            ended = at.isBefore(started) ? started : at;
            notifyAll();
        }
    }

    /** Ends a run that is thrown away (its pod gone): followers stop, nothing more is printed. */
    void discard() {
        end(137, clock.instant());
    }

    /** How many lines the log holds by {@code now}: the start line, the printed ones, the end line. */
    private long count(Instant now) {
        Instant until = ended != null && ended.isBefore(now) ? ended : now;
        long printed = until.isBefore(started) ? 0 : script.printedBy(java.time.Duration.between(started, until)
                .toNanos());
        long total = 1 + printed;
        return ended != null && !now.isBefore(ended) ? total + 1 : total;
    }

    /** Line {@code i}'s time: 0 is the start line, the last of an ended run its end line. */
    private Instant timeOf(long i, long count) {
        if (i == 0) {
            return started;
        }
        if (ended != null && i == count - 1) {
            return ended;
        }
        return started.plusNanos(script.offsetOf(i - 1));
    }

    private String textOf(long i, long count) {
        if (i == 0) {
            return "[cybernetes] started container " + container + " (image " + vars.getOrDefault("image", "")
                    + (restart > 0 ? ", restart " + restart : "") + ")";
        }
        if (ended != null && i == count - 1) {
            return "[cybernetes] container " + container + " exited with code " + exitCode;
        }
        return script.text(i - 1, vars);
    }

    /**
     * Writes the log as asked to {@code out}, flushing after each batch of lines; when
     * following, waits for new lines until the run ends, the thread is interrupted, writing
     * fails or {@code open} says the reader went away (asked about once a second while idle).
     */
    public void write(Query q, OutputStream out, BooleanSupplier open) throws IOException {
        Instant now = clock.instant();
        long count = count(now);
        long first = Math.max(0, count - retained);
        if (q.since() != null) {
            first = firstAtOrAfter(q.since(), first, count);
        }
        if (q.tailLines() != null) {
            first = Math.max(first, count - q.tailLines());
        }
        long budget = q.limitBytes() == null ? Long.MAX_VALUE : q.limitBytes();
        long next = first;
        while (true) {
            StringBuilder batch = new StringBuilder();
            for (; next < count && batch.length() < 64 * 1024; next++) {
                if (q.timestamps()) {
                    batch.append(RFC3339_NANO.format(timeOf(next, count))).append(' ');
                }
                batch.append(textOf(next, count)).append('\n');
            }
            if (batch.length() > 0) {
                byte[] bytes = batch.toString().getBytes(StandardCharsets.UTF_8);
                int n = (int) Math.min(bytes.length, budget);
                out.write(bytes, 0, n);
                out.flush();
                budget -= n;
                if (budget <= 0) {
                    return;
                }
                if (next < count) {
                    continue;
                }
            }
            boolean done = ended != null && !clock.instant().isBefore(ended) && next >= count(clock.instant());
            if (!q.follow() || done) {
                return;
            }
            if (!awaitLine(next, open)) {
                return;
            }
            count = count(clock.instant());
        }
    }

    /** Waits until line {@code i} is due or the run ends; false when interrupted or the reader is gone. */
    private synchronized boolean awaitLine(long i, BooleanSupplier open) {
        try {
            while (true) {
                Instant now = clock.instant();
                if (count(now) > i || (ended != null && !now.isBefore(ended))) {
                    return true;
                }
                long offset = script.offsetOf(i - 1);
                long waitNanos = offset < 0 ? 1_000_000_000L
                        : java.time.Duration.between(now, started.plusNanos(offset)).toNanos();
                long millis = Math.max(1, Math.min(1000, (waitNanos + 999_999) / 1_000_000));
                wait(millis);
                if (millis >= 1000 && !open.getAsBoolean()) {
                    return false;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The first line at or after {@code since}, searching [from, count) (line times only grow). */
    private long firstAtOrAfter(Instant since, long from, long count) {
        long lo = from;
        long hi = count;
        while (lo < hi) {
            long mid = lo + (hi - lo) / 2;
            if (timeOf(mid, count).isBefore(since)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
