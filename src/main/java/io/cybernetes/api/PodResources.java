package io.cybernetes.api;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Reading a pod's containers and their resource requests and limits, for admission, quota and the scheduler. */
public final class PodResources {

    private PodResources() {
    }

    /** The containers and init containers of a pod spec (or template spec). */
    public static List<ObjectNode> containers(JsonNode podSpec) {
        List<ObjectNode> out = new ArrayList<>();
        for (String field : new String[] {"initContainers", "containers"}) {
            for (JsonNode c : podSpec.path(field)) {
                if (c instanceof ObjectNode o) {
                    out.add(o);
                }
            }
        }
        return out;
    }

    /** One container's {@code resources.requests} or {@code resources.limits} as numbers. */
    public static Map<String, BigDecimal> of(JsonNode container, String kind) {
        Map<String, BigDecimal> out = new HashMap<>();
        container.path("resources").path(kind).properties().forEach(e -> out.put(e.getKey(),
                Quantities.parse(e.getValue().asString())));
        return out;
    }

    /**
     * What the pod as a whole asks for, as the scheduler and quota count it: the sum over
     * its containers, or the largest init container when that is more.
     */
    public static Map<String, BigDecimal> total(JsonNode podSpec, String kind) {
        Map<String, BigDecimal> sum = new HashMap<>();
        for (JsonNode c : podSpec.path("containers")) {
            of(c, kind).forEach((k, v) -> sum.merge(k, v, BigDecimal::add));
        }
        for (JsonNode c : podSpec.path("initContainers")) {
            of(c, kind).forEach((k, v) -> sum.merge(k, v, BigDecimal::max));
        }
        return sum;
    }
}
