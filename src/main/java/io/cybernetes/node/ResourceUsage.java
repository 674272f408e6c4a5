package io.cybernetes.node;

import io.cybernetes.api.Quantities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the containers running on one node use, as a simulated container runtime reports
 * it: cpu as a cumulative counter of core-seconds and memory as a working set, the node's
 * the sum of its containers'. By default a container uses a fraction of what it requests
 * (of 100m cpu and 64Mi memory when it requests nothing), give or take some noise. The pod
 * annotation {@value #POD_ANNOTATION} (or {@value #POD_ANNOTATION}{@code .<container>} for
 * one container) sets its usage instead, exactly: {@code cpu=500m memory=200Mi}; a value
 * may be a share of the request ({@code cpu=150%}) or a curve over the time since the
 * container started, straight between its points and held after the last
 * ({@code cpu=100m@0s,900m@60s,100m@2m}).
 */
final class ResourceUsage {

    /** The pod annotation that sets its containers' usage. */
    static final String POD_ANNOTATION = "cybernetes.io/usage";

    /**
     * How a container uses what it requests when no annotation says: this fraction of it,
     * changed at every sample by up to {@code noise} of itself either way.
     */
    record Defaults(double fraction, double noise) {
        static final Defaults STANDARD = new Defaults(0.3, 0.1);

        Defaults {
            if (fraction < 0 || noise < 0 || noise > 1) {
                throw new IllegalArgumentException("usage fraction must be at least 0 and noise between 0 and 1");
            }
        }
    }

    /** One container's figures at a scrape. */
    record ContainerPoint(String namespace, String pod, String container, Instant started, double cpuSeconds,
                          long memoryBytes) {
    }

    /** What a scrape of the node reads: its containers and itself, at one instant. */
    record Scrape(Instant at, List<ContainerPoint> containers, double nodeCpuSeconds, long nodeMemoryBytes) {
    }

    private static final BigDecimal DEFAULT_CPU = new BigDecimal("0.1");
    private static final BigDecimal DEFAULT_MEMORY = BigDecimal.valueOf(64L << 20);
    private static final Pattern POINT = Pattern.compile("([^@]+)(?:@(\\d+(?:\\.\\d+)?)(ms|s|m|h))?");

    /** A container's cumulative cpu as of a time, kept from scrape to scrape. */
    private record Counter(Instant started, Instant at, double cpuSeconds) {
    }

    private final Map<String, Counter> counters = new HashMap<>();
    private volatile Defaults defaults = Defaults.STANDARD;
    private Instant nodeAt;
    private double nodeCpuSeconds;

    void defaults(Defaults d) {
        defaults = Objects.requireNonNull(d);
    }

    /**
     * Brings the counters of the running containers of these pods up to {@code now} and
     * reads them; those no longer running are forgotten.
     */
    synchronized Scrape scrape(List<Pod> pods, Instant now) {
        List<ContainerPoint> points = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        double cpuNow = 0;
        long memory = 0;
        for (Pod pod : pods) {
            if (pod.getStatus() == null || !"Running".equals(pod.getStatus().getPhase())) {
                continue;
            }
            for (Container c : pod.getSpec().getContainers()) {
                Instant started = startedAt(pod, c.getName());
                if (started == null || started.isAfter(now)) {
                    continue;
                }
                String key = pod.getMetadata().getUid() + "/" + c.getName();
                seen.add(key);
                Usage u = usage(pod, c, Duration.between(started, now));
                Counter before = counters.get(key);
                if (before == null || !before.started().equals(started)) {
                    // first seen (or restarted): it has used about this much since it started
                    before = new Counter(started, started, 0);
                }
                double seconds = Math.max(0, Duration.between(before.at(), now).toNanos() / 1e9);
                Counter after = new Counter(started, now, before.cpuSeconds() + u.cpuCores() * seconds);
                counters.put(key, after);
                cpuNow += u.cpuCores();
                memory += u.memoryBytes();
                points.add(new ContainerPoint(pod.getMetadata().getNamespace(), pod.getMetadata().getName(),
                        c.getName(), started, after.cpuSeconds(), u.memoryBytes()));
            }
        }
        counters.keySet().retainAll(seen);
        if (nodeAt != null) {
            nodeCpuSeconds += cpuNow * Math.max(0, Duration.between(nodeAt, now).toNanos() / 1e9);
        }
        nodeAt = now;
        return new Scrape(now, points, nodeCpuSeconds, memory);
    }

    /** What a container uses at a time into its run: cpu in cores, memory in bytes. */
    record Usage(double cpuCores, long memoryBytes) {
    }

    Usage usage(Pod pod, Container c, Duration running) {
        Map<String, String> annotations = Objects.requireNonNullElse(pod.getMetadata().getAnnotations(), Map.of());
        Map<String, String> set = parse(annotations.get(POD_ANNOTATION));
        set.putAll(parse(annotations.get(POD_ANNOTATION + "." + c.getName())));
        BigDecimal cpuRequest = request(c, "cpu", DEFAULT_CPU);
        BigDecimal memoryRequest = request(c, "memory", DEFAULT_MEMORY);
        Defaults d = defaults;
        Double cpu = set.containsKey("cpu") ? curve(set.get("cpu"), cpuRequest, running) : null;
        Double memory = set.containsKey("memory") ? curve(set.get("memory"), memoryRequest, running) : null;
        return new Usage(cpu != null ? cpu : noisy(cpuRequest.doubleValue() * d.fraction(), d),
                (long) Math.max(0, memory != null ? memory : noisy(memoryRequest.doubleValue() * d.fraction(), d)));
    }

    private static double noisy(double v, Defaults d) {
        return d.noise() == 0 ? v : v * (1 + ThreadLocalRandom.current().nextDouble(-d.noise(), d.noise()));
    }

    private static BigDecimal request(Container c, String resource, BigDecimal otherwise) {
        Quantity q = c.getResources() == null || c.getResources().getRequests() == null ? null
                : c.getResources().getRequests().get(resource);
        if (q == null) {
            return otherwise;
        }
        try {
            return Quantities.parse(q.toString());
        } catch (RuntimeException e) {
            return otherwise;
        }
    }

    /** {@code cpu=500m memory=10%}: each resource's text; what cannot be read is left out. */
    private static Map<String, String> parse(String annotation) {
        Map<String, String> out = new HashMap<>();
        if (annotation == null) {
            return out;
        }
        for (String part : annotation.trim().split("[\\s;]+")) {
            int eq = part.indexOf('=');
            if (eq > 0) {
                out.put(part.substring(0, eq).trim(), part.substring(eq + 1).trim());
            }
        }
        return out;
    }

    /**
     * The value of a curve at a time: {@code 100m@0s,900m@60s} straight between points,
     * held before the first and after the last; a value with {@code %} a share of the
     * request. Null when it cannot be read (the default usage then applies).
     */
    static Double curve(String text, BigDecimal request, Duration at) {
        List<double[]> points = new ArrayList<>();
        for (String p : text.split(",")) {
            Matcher m = POINT.matcher(p.trim());
            if (!m.matches()) {
                return null;
            }
            Double v = value(m.group(1).trim(), request);
            if (v == null) {
                return null;
            }
            double t = m.group(2) == null ? 0 : Double.parseDouble(m.group(2)) * switch (m.group(3)) {
                case "ms" -> 0.001;
                case "m" -> 60;
                case "h" -> 3600;
                default -> 1;
            };
            points.add(new double[] {t, v});
        }
        if (points.isEmpty()) {
            return null;
        }
        points.sort((a, b) -> Double.compare(a[0], b[0]));
        double now = at.toNanos() / 1e9;
        if (now <= points.get(0)[0]) {
            return points.get(0)[1];
        }
        for (int i = 1; i < points.size(); i++) {
            double[] a = points.get(i - 1);
            double[] b = points.get(i);
            if (now <= b[0]) {
                return b[0] == a[0] ? b[1] : a[1] + (b[1] - a[1]) * (now - a[0]) / (b[0] - a[0]);
            }
        }
        return points.get(points.size() - 1)[1];
    }

    private static Double value(String text, BigDecimal request) {
        try {
            if (text.endsWith("%")) {
                return request.doubleValue() * Double.parseDouble(text.substring(0, text.length() - 1)) / 100;
            }
            return Quantities.parse(text).doubleValue();
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static Instant startedAt(Pod pod, String container) {
        for (ContainerStatus s : Objects.requireNonNullElse(pod.getStatus().getContainerStatuses(),
                List.<ContainerStatus>of())) {
            if (s.getName().equals(container) && s.getState() != null && s.getState().getRunning() != null
                    && s.getState().getRunning().getStartedAt() != null) {
                try {
                    return Instant.parse(s.getState().getRunning().getStartedAt());
                } catch (RuntimeException e) {
                    return null;
                }
            }
        }
        return null;
    }
}
