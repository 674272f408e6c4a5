package io.cybernetes.scheduler.framework;

import io.cybernetes.api.Json;
import io.cybernetes.api.PodResources;
import io.cybernetes.api.Quantities;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.HashMap;
import java.util.Map;

/**
 * An amount of each resource, in the units the scheduler compares: cpu in millicores,
 * memory and storage in bytes, anything else (extended resources such as
 * {@code nvidia.com/gpu}) in whole units.
 */
public record Resources(Map<String, Long> amounts) {

    public static final String CPU = "cpu";
    public static final String MEMORY = "memory";
    public static final Resources NONE = new Resources(Map.of());

    /** What a pod that asks nothing is taken to use when nodes are scored (as Kubernetes: 100m, 200Mi). */
    static final long DEFAULT_MILLI_CPU = 100;
    static final long DEFAULT_MEMORY = 200L * 1024 * 1024;

    public Resources {
        amounts = Map.copyOf(amounts);
    }

    public long get(String resource) {
        return amounts.getOrDefault(resource, 0L);
    }

    public Resources plus(Resources other) {
        Map<String, Long> sum = new HashMap<>(amounts);
        other.amounts.forEach((k, v) -> sum.merge(k, v, Long::sum));
        return new Resources(sum);
    }

    /** One quantity in the scheduler's unit for the resource. */
    static long units(String resource, BigDecimal value) {
        BigDecimal v = CPU.equals(resource) ? value.multiply(BigDecimal.valueOf(1000)) : value;
        return v.setScale(0, RoundingMode.CEILING).longValueExact();
    }

    /** A node's allocatable resources (its capacity when it reports no allocatable). */
    public static Resources of(Map<String, Quantity> quantities) {
        Map<String, Long> out = new HashMap<>();
        if (quantities != null) {
            quantities.forEach((k, q) -> out.put(k, units(k, Quantities.parse(q.toString()))));
        }
        return new Resources(out);
    }

    /** What the pod asks for: its containers' requests summed, or its largest init container's, plus its overhead. */
    public static Resources requestedBy(Pod pod) {
        if (pod.getSpec() == null) {
            return NONE;
        }
        Map<String, Long> out = new HashMap<>();
        PodResources.total(Json.toTree(pod.getSpec()), "requests").forEach((k, v) -> out.put(k, units(k, v)));
        if (pod.getSpec().getOverhead() != null) {
            of(pod.getSpec().getOverhead()).amounts.forEach((k, v) -> out.merge(k, v, Long::sum));
        }
        return new Resources(out);
    }

    /** As {@link #requestedBy}, but cpu and memory never counted as zero: for spreading pods when scoring. */
    public static Resources nonZeroRequestedBy(Pod pod) {
        Resources r = requestedBy(pod);
        Map<String, Long> out = new HashMap<>(r.amounts);
        if (r.get(CPU) == 0) {
            out.put(CPU, DEFAULT_MILLI_CPU);
        }
        if (r.get(MEMORY) == 0) {
            out.put(MEMORY, DEFAULT_MEMORY);
        }
        return new Resources(out);
    }
}
