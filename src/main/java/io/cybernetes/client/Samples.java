package io.cybernetes.client;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A component's numbers taken every {@code period} and kept for a {@code window} (the
 * dashboard's charts of the last 15 minutes): counters such as reconciles done, which the
 * reader turns into rates, and gauges such as queue depth. Taken on a daemon thread of its
 * own from the moment it starts.
 */
public final class Samples implements AutoCloseable {

    /** The values, in the order of {@link #names()}, at one moment. */
    public record Sample(Instant time, double[] values) {
    }

    private final String name;
    private final List<String> names;
    private final Duration period;
    private final int capacity;
    private final Supplier<double[]> source;
    private final Clock clock;
    private final ArrayDeque<Sample> kept = new ArrayDeque<>();
    private ScheduledExecutorService timer;

    public Samples(String name, List<String> names, Duration period, Duration window, Supplier<double[]> source,
                   Clock clock) {
        this.name = name;
        this.names = List.copyOf(names);
        this.period = period;
        this.capacity = (int) Math.max(1, window.toMillis() / period.toMillis());
        this.source = source;
        this.clock = clock;
    }

    public List<String> names() {
        return names;
    }

    public Duration period() {
        return period;
    }

    /** Takes one sample now (the timer calls this every period). */
    public void take() {
        double[] values = source.get();
        if (values.length != names.size()) {
            throw new IllegalStateException(name + ": " + values.length + " values for " + names.size() + " names");
        }
        synchronized (kept) {
            kept.addLast(new Sample(clock.instant(), values.clone()));
            while (kept.size() > capacity) {
                kept.removeFirst();
            }
        }
    }

    /** The samples as they go on the wire: the period, the names, and each sample's time and values. */
    public record Series(long periodSeconds, List<String> names, List<Point> points) {
    }

    public record Point(String time, double[] values) {
    }

    public Series series() {
        return new Series(period.toSeconds(), names, all().stream()
                .map(x -> new Point(x.time().toString(), x.values())).toList());
    }

    /** The samples kept, oldest first. */
    public List<Sample> all() {
        synchronized (kept) {
            return List.copyOf(kept);
        }
    }

    public synchronized void start() {
        if (timer != null) {
            return;
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "samples-" + name);
            t.setDaemon(true);
            return t;
        });
        timer.scheduleAtFixedRate(() -> {
            try {
                take();
            } catch (RuntimeException e) {
                // a sample missed is a gap in a chart, nothing more
            }
        }, 0, period.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void close() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }
}
