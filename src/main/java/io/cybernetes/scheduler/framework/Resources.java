package io.cybernetes.scheduler.framework;

import io.cybernetes.api.Quantities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An amount of each resource, in the units the scheduler compares: cpu in millicores,
 * memory and storage in bytes, anything else (extended resources such as
 * {@code nvidia.com/gpu}) in whole units. Immutable; cpu, memory and pods — read for every
 * node in every cycle — are kept apart from the rest.
 */
public final class Resources {

    public static final String CPU = "cpu";
    public static final String MEMORY = "memory";
    public static final String PODS = "pods";
    public static final Resources NONE = new Resources(Map.of());

    /** What a pod that asks nothing is taken to use when nodes are scored (as Kubernetes: 100m, 200Mi). */
    static final long DEFAULT_MILLI_CPU = 100;
    static final long DEFAULT_MEMORY = 200L * 1024 * 1024;

    private final Map<String, Long> amounts;
    private final long cpu;
    private final long memory;
    private final long pods;

    public Resources(Map<String, Long> amounts) {
        this.amounts = Map.copyOf(amounts);
        this.cpu = this.amounts.getOrDefault(CPU, 0L);
        this.memory = this.amounts.getOrDefault(MEMORY, 0L);
        this.pods = this.amounts.getOrDefault(PODS, 0L);
    }

    public Map<String, Long> amounts() {
        return amounts;
    }

    public long get(String resource) {
        switch (resource) {
            case CPU:
                return cpu;
            case MEMORY:
                return memory;
            case PODS:
                return pods;
            default:
                return amounts.getOrDefault(resource, 0L);
        }
    }

    public Resources plus(Resources other) {
        if (other.amounts.isEmpty()) {
            return this;
        }
        Map<String, Long> sum = new HashMap<>(amounts);
        other.amounts.forEach((k, v) -> sum.merge(k, v, Resources::saturatedAdd));
        return new Resources(sum);
    }

    public Resources minus(Resources other) {
        if (other.amounts.isEmpty()) {
            return this;
        }
        Map<String, Long> rest = new HashMap<>(amounts);
        other.amounts.forEach((k, v) -> rest.merge(k, v == Long.MIN_VALUE ? Long.MAX_VALUE : -v,
                Resources::saturatedAdd));
        return new Resources(rest);
    }

    /** One quantity in the scheduler's unit for the resource; beyond an int64, the largest one (it fits nowhere). */
    static long units(String resource, BigDecimal value) {
        BigDecimal v = CPU.equals(resource) ? value.multiply(BigDecimal.valueOf(1000)) : value;
        BigDecimal whole = v.setScale(0, RoundingMode.CEILING);
        if (whole.compareTo(MAX) > 0) {
            return Long.MAX_VALUE;
        }
        return whole.compareTo(MIN) < 0 ? Long.MIN_VALUE : whole.longValueExact();
    }

    /** A sum that stops at the ends of an int64 instead of wrapping round (a huge request must not turn small). */
    static long saturatedAdd(long a, long b) {
        long r = a + b;
        if (((a ^ r) & (b ^ r)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }

    private static final BigDecimal MAX = BigDecimal.valueOf(Long.MAX_VALUE);
    private static final BigDecimal MIN = BigDecimal.valueOf(Long.MIN_VALUE);

    /** A node's allocatable resources (its capacity when it reports no allocatable). */
    public static Resources of(Map<String, Quantity> quantities) {
        Map<String, Long> out = new HashMap<>();
        if (quantities != null) {
            quantities.forEach((k, q) -> out.put(k, units(k, Quantities.parse(q.toString()))));
        }
        return new Resources(out);
    }

    /**
     * What the pod asks for: its containers' requests summed, or its largest init
     * container's when that is more (per resource), plus its overhead.
     */
    public static Resources requestedBy(Pod pod) {
        if (pod.getSpec() == null) {
            return NONE;
        }
        Map<String, Long> out = new HashMap<>();
        for (Container c : Objects.requireNonNullElse(pod.getSpec().getContainers(), List.<Container>of())) {
            requests(c).forEach((k, v) -> out.merge(k, v, Resources::saturatedAdd));
        }
        for (Container c : Objects.requireNonNullElse(pod.getSpec().getInitContainers(), List.<Container>of())) {
            requests(c).forEach((k, v) -> out.merge(k, v, Math::max));
        }
        if (pod.getSpec().getOverhead() != null) {
            of(pod.getSpec().getOverhead()).amounts.forEach((k, v) -> out.merge(k, v, Resources::saturatedAdd));
        }
        return new Resources(out);
    }

    private static Map<String, Long> requests(Container c) {
        if (c.getResources() == null || c.getResources().getRequests() == null) {
            return Map.of();
        }
        return of(c.getResources().getRequests()).amounts;
    }

    /** As {@link #requestedBy}, but cpu and memory never counted as zero: for spreading pods when scoring. */
    public static Resources nonZeroRequestedBy(Pod pod) {
        return nonZero(requestedBy(pod));
    }

    /** These requests with cpu and memory never zero. */
    public static Resources nonZero(Resources r) {
        if (r.cpu != 0 && r.memory != 0) {
            return r;
        }
        Map<String, Long> out = new HashMap<>(r.amounts);
        if (r.cpu == 0) {
            out.put(CPU, DEFAULT_MILLI_CPU);
        }
        if (r.memory == 0) {
            out.put(MEMORY, DEFAULT_MEMORY);
        }
        return new Resources(out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Resources r && amounts.equals(r.amounts);
    }

    @Override
    public int hashCode() {
        return amounts.hashCode();
    }

    @Override
    public String toString() {
        return "Resources" + amounts;
    }
}
