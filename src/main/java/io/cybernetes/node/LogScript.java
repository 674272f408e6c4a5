package io.cybernetes.node;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a simulated container prints, and when: lines, each some time after the container
 * started. Written as a pod annotation ({@value #POD_ANNOTATION} for every container, or
 * {@value #CONTAINER_ANNOTATION_PREFIX}{@code <container>} for one), one instruction a line:
 * <ul>
 *   <li>{@code sleep <duration>} waits ({@code 2s}, {@code 500ms}, {@code 50us}, {@code 1m}, or seconds:
 *       {@code 1.5});</li>
 *   <li>{@code repeat}, as the last line, starts over from the top (once the script waits at all);</li>
 *   <li>{@code echo <text>} prints the text as it is (to print a line that reads like an instruction);</li>
 *   <li>any other line is printed, with {@code {n}} (the line's number, from 1), {@code {pod}},
 *       {@code {namespace}}, {@code {container}}, {@code {node}} and {@code {image}} filled in.</li>
 * </ul>
 * Without a script a container prints a line every log interval. A script is a timetable,
 * not a program: line i's time and text are computed from i, so a log costs nothing while
 * nobody reads it, however long the container runs.
 */
public final class LogScript {

    public static final String POD_ANNOTATION = "cybernetes.io/log-script";
    public static final String CONTAINER_ANNOTATION_PREFIX = "log-script.cybernetes.io/";
    static final String DEFAULT_LINE = "{container}: running in pod {namespace}/{pod} on {node} ({n})";

    /** One printed line of a pass: how long after the pass began, and its text (placeholders unfilled). */
    private record Entry(long offsetNanos, String text, boolean literal) {
    }

    private final List<Entry> entries;
    /** How long one pass lasts (the sum of its waits). */
    private final long periodNanos;
    private final boolean repeats;

    private LogScript(List<Entry> entries, long periodNanos, boolean repeats) {
        this.entries = entries;
        this.periodNanos = periodNanos;
        this.repeats = repeats && periodNanos > 0 && !entries.isEmpty();
    }

    /** A line every {@code interval}, as a container prints without a script. */
    public static LogScript every(Duration interval) {
        long nanos = Math.max(1_000_000, interval.toNanos());
        return new LogScript(List.of(new Entry(nanos, DEFAULT_LINE, false)), nanos, true);
    }

    /** The script of a container: its own annotation, else the pod's, else a line every {@code interval}. */
    public static LogScript of(Map<String, String> annotations, String container, Duration interval) {
        String text = annotations == null ? null : annotations.get(CONTAINER_ANNOTATION_PREFIX + container);
        if (text == null && annotations != null) {
            text = annotations.get(POD_ANNOTATION);
        }
        return text == null ? every(interval) : parse(text);
    }

    /** Parses a script; a {@code sleep} it cannot read waits not at all. */
    public static LogScript parse(String script) {
        List<Entry> entries = new ArrayList<>();
        long at = 0;
        boolean repeats = false;
        String[] lines = script.split("\r?\n", -1);
        int last = lines.length - 1;
        while (last >= 0 && lines[last].isBlank()) {
            last--;
        }
        for (int i = 0; i <= last; i++) {
            String line = lines[i];
            String trimmed = line.trim();
            if (trimmed.startsWith("sleep ")) {
                at += duration(trimmed.substring(6).trim());
            } else if (trimmed.equals("repeat") && i == last) {
                repeats = true;
            } else if (trimmed.startsWith("echo ") || trimmed.equals("echo")) {
                entries.add(new Entry(at, trimmed.length() > 5 ? line.substring(line.indexOf("echo") + 5) : "", true));
            } else {
                entries.add(new Entry(at, line, false));
            }
        }
        return new LogScript(List.copyOf(entries), at, repeats);
    }

    /** Nanoseconds in {@code 2s}, {@code 500ms}, {@code 1m}, {@code 1h} or a number of seconds; 0 when unreadable. */
    static long duration(String s) {
        try {
            if (s.endsWith("ms")) {
                return (long) (Double.parseDouble(s.substring(0, s.length() - 2)) * 1e6);
            }
            if (s.endsWith("us") || s.endsWith("µs")) {
                return (long) (Double.parseDouble(s.substring(0, s.length() - 2)) * 1e3);
            }
            char unit = s.charAt(s.length() - 1);
            double factor = switch (unit) {
                case 's' -> 1e9;
                case 'm' -> 60e9;
                case 'h' -> 3600e9;
                default -> 0;
            };
            if (factor > 0) {
                return (long) (Double.parseDouble(s.substring(0, s.length() - 1)) * factor);
            }
            return (long) (Double.parseDouble(s) * 1e9);
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            return 0;
        }
    }

    /** How many lines have been printed {@code elapsedNanos} after the start (Long.MAX_VALUE lines at most). */
    long printedBy(long elapsedNanos) {
        if (entries.isEmpty() || elapsedNanos < 0) {
            return 0;
        }
        if (!repeats) {
            return countUpTo(elapsedNanos);
        }
        long passes = elapsedNanos / periodNanos;
        long within = elapsedNanos % periodNanos;
        if (passes > (Long.MAX_VALUE - entries.size()) / entries.size()) {
            return Long.MAX_VALUE;
        }
        return passes * entries.size() + countUpTo(within);
    }

    private long countUpTo(long nanos) {
        int n = 0;
        for (Entry e : entries) {
            if (e.offsetNanos() <= nanos) {
                n++;
            }
        }
        return n;
    }

    /** When line {@code i} (from 0) is printed, in nanoseconds after the start; -1 when the script never prints it. */
    long offsetOf(long i) {
        if (entries.isEmpty() || (!repeats && i >= entries.size())) {
            return -1;
        }
        long pass = i / entries.size();
        return pass * periodNanos + entries.get((int) (i % entries.size())).offsetNanos();
    }

    /** Line {@code i} (from 0), its placeholders filled from {@code vars}. */
    String text(long i, Map<String, String> vars) {
        Entry e = entries.get((int) (i % entries.size()));
        if (e.literal()) {
            return e.text();
        }
        String out = e.text().replace("{n}", Long.toString(i + 1));
        for (Map.Entry<String, String> v : vars.entrySet()) {
            out = out.replace("{" + v.getKey() + "}", v.getValue());
        }
        return out;
    }
}
