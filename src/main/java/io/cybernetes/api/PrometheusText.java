package io.cybernetes.api;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * Metrics in the Prometheus text format under Kubernetes' own names (what Grafana's
 * control-plane dashboards query): a writer, and the few kinds of metric the modules keep.
 * Every module that has figures to show contributes a {@link Source}; the API server serves
 * them all at {@code /metrics}.
 */
public final class PrometheusText {

    /** Something with figures to show; called at every scrape. */
    public interface Source {
        void collect(PrometheusText out);
    }

    /** Kubernetes' buckets for request latencies, in seconds. */
    public static final double[] REQUEST_BUCKETS = {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2,
        3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60};

    private final StringBuilder text = new StringBuilder(8192);
    private final Set<String> declared = new HashSet<>();

    /** Declares a metric once: its {@code # HELP} and {@code # TYPE} lines. */
    public PrometheusText family(String name, String type, String help) {
        if (declared.add(name)) {
            text.append("# HELP ").append(name).append(' ').append(help).append('\n');
            text.append("# TYPE ").append(name).append(' ').append(type).append('\n');
        }
        return this;
    }

    /** One sample; labels as name, value, name, value... */
    public PrometheusText sample(String name, double value, String... labels) {
        text.append(name);
        if (labels.length > 0) {
            text.append('{');
            for (int i = 0; i + 1 < labels.length; i += 2) {
                if (i > 0) {
                    text.append(',');
                }
                text.append(labels[i]).append("=\"").append(escape(labels[i + 1])).append('"');
            }
            text.append('}');
        }
        text.append(' ').append(format(value)).append('\n');
        return this;
    }

    public String text() {
        return text.toString();
    }

    private static String format(double v) {
        if (v == Math.rint(v) && !Double.isInfinite(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return Double.isInfinite(v) ? (v > 0 ? "+Inf" : "-Inf") : Double.toString(v);
    }

    private static String escape(String v) {
        return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    private static String[] with(String[] labels, String name, String value) {
        String[] all = java.util.Arrays.copyOf(labels, labels.length + 2);
        all[labels.length] = name;
        all[labels.length + 1] = value;
        return all;
    }

    /** A counter for each set of label values. */
    public static final class Counters {
        private final Map<List<String>, LongAdder> counts = new ConcurrentHashMap<>();
        private final List<String> labelNames;

        public Counters(String... labelNames) {
            this.labelNames = List.of(labelNames);
        }

        public void inc(String... labelValues) {
            counts.computeIfAbsent(List.of(labelValues), k -> new LongAdder()).increment();
        }

        public void writeTo(PrometheusText out, String name, String help) {
            out.family(name, "counter", help);
            counts.forEach((values, n) -> out.sample(name, n.sum(), labels(labelNames, values)));
        }
    }

    /** A histogram for each set of label values, with fixed buckets. */
    public static final class Histograms {
        private final Map<List<String>, Histogram> histograms = new ConcurrentHashMap<>();
        private final List<String> labelNames;
        private final double[] bounds;

        public Histograms(double[] bounds, String... labelNames) {
            this.bounds = bounds.clone();
            this.labelNames = List.of(labelNames);
        }

        public void observe(double value, String... labelValues) {
            histograms.computeIfAbsent(List.of(labelValues), k -> new Histogram(bounds)).observe(value);
        }

        public void writeTo(PrometheusText out, String name, String help) {
            out.family(name, "histogram", help);
            histograms.forEach((values, h) -> h.writeTo(out, name, labels(labelNames, values)));
        }
    }

    /** One histogram: counts per bucket, their sum and their number. */
    public static final class Histogram {
        private final double[] bounds;
        private final LongAdder[] buckets;
        private final DoubleAdder sum = new DoubleAdder();
        private final LongAdder count = new LongAdder();

        public Histogram(double[] bounds) {
            this.bounds = bounds.clone();
            this.buckets = new LongAdder[bounds.length];
            for (int i = 0; i < bounds.length; i++) {
                buckets[i] = new LongAdder();
            }
        }

        public void observe(double value) {
            for (int i = 0; i < bounds.length; i++) {
                if (value <= bounds[i]) {
                    buckets[i].increment();
                    break;
                }
            }
            sum.add(value);
            count.increment();
        }

        public void writeTo(PrometheusText out, String name, String... labels) {
            long cumulative = 0;
            for (int i = 0; i < bounds.length; i++) {
                cumulative += buckets[i].sum();
                out.sample(name + "_bucket", cumulative, with(labels, "le", format(bounds[i])));
            }
            out.sample(name + "_bucket", count.sum(), with(labels, "le", "+Inf"));
            out.sample(name + "_sum", sum.sum(), labels);
            out.sample(name + "_count", count.sum(), labels);
        }
    }

    private static String[] labels(List<String> names, List<String> values) {
        String[] out = new String[names.size() * 2];
        for (int i = 0; i < names.size(); i++) {
            out[2 * i] = names.get(i);
            out[2 * i + 1] = values.get(i);
        }
        return out;
    }
}
