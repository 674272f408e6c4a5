package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/**
 * HorizontalPodAutoscalers between {@code autoscaling/v2} (stored) and {@code autoscaling/v1},
 * as Kubernetes converts them: v1 has only a cpu utilization target, so what else v2 says
 * (its other metrics, behavior, conditions and other current metrics) rides in v1's
 * {@code autoscaling.alpha.kubernetes.io/*} annotations and comes back from them. A v1 object
 * without a target is the default one, 80% cpu.
 */
final class HorizontalPodAutoscalerConversion implements VersionConverter {

    static final String V1 = "autoscaling/v1";
    static final String V2 = "autoscaling/v2";
    static final String METRICS = "autoscaling.alpha.kubernetes.io/metrics";
    static final String BEHAVIOR = "autoscaling.alpha.kubernetes.io/behavior";
    static final String CONDITIONS = "autoscaling.alpha.kubernetes.io/conditions";
    static final String CURRENT_METRICS = "autoscaling.alpha.kubernetes.io/current-metrics";
    static final int DEFAULT_CPU_UTILIZATION = 80;

    @Override
    public List<ObjectNode> convert(List<ObjectNode> objects, String apiVersion) {
        List<ObjectNode> out = new ArrayList<>(objects.size());
        for (ObjectNode o : objects) {
            String from = Json.text(o, "apiVersion");
            out.add(apiVersion.equals(from) ? o.deepCopy() : V1.equals(apiVersion) ? toV1(o) : toV2(o));
        }
        return out;
    }

    /** Whether a v2 metric is v1's one target: cpu utilization of the pods. */
    private static boolean cpuUtilization(JsonNode m) {
        return "Resource".equals(m.path("type").asString("")) && "cpu".equals(m.path("resource").path("name")
                .asString("")) && "Utilization".equals(m.path("resource").path("target").path("type").asString(""));
    }

    private static boolean currentCpu(JsonNode m) {
        return "Resource".equals(m.path("type").asString("")) && "cpu".equals(m.path("resource").path("name")
                .asString("")) && m.path("resource").path("current").has("averageUtilization");
    }

    static ObjectNode toV1(ObjectNode v2) {
        ObjectNode o = Json.object();
        o.put("apiVersion", V1);
        o.put("kind", "HorizontalPodAutoscaler");
        ObjectNode meta = v2.path("metadata") instanceof ObjectNode m ? m.deepCopy() : Json.object();
        o.set("metadata", meta);
        JsonNode spec = v2.path("spec");
        ObjectNode s = o.putObject("spec");
        copy(spec, s, "scaleTargetRef", "minReplicas", "maxReplicas");
        ArrayNode others = Json.MAPPER.createArrayNode();
        for (JsonNode m : spec.path("metrics")) {
            if (cpuUtilization(m) && !s.has("targetCPUUtilizationPercentage")) {
                s.put("targetCPUUtilizationPercentage", m.path("resource").path("target").path("averageUtilization")
                        .asInt());
            } else {
                others.add(m.deepCopy());
            }
        }
        ObjectNode annotations = Json.object();
        if (!others.isEmpty()) {
            annotations.put(METRICS, others.toString());
        }
        if (spec.has("behavior") && !spec.path("behavior").isNull()) {
            annotations.put(BEHAVIOR, spec.path("behavior").toString());
        }
        JsonNode status = v2.path("status");
        if (status.isObject()) {
            ObjectNode st = o.putObject("status");
            copy(status, st, "observedGeneration", "lastScaleTime", "currentReplicas", "desiredReplicas");
            ArrayNode otherCurrent = Json.MAPPER.createArrayNode();
            for (JsonNode m : status.path("currentMetrics")) {
                if (currentCpu(m) && !st.has("currentCPUUtilizationPercentage")) {
                    st.put("currentCPUUtilizationPercentage", m.path("resource").path("current")
                            .path("averageUtilization").asInt());
                } else {
                    otherCurrent.add(m.deepCopy());
                }
            }
            if (!otherCurrent.isEmpty()) {
                annotations.put(CURRENT_METRICS, otherCurrent.toString());
            }
            if (status.path("conditions").isArray() && !status.path("conditions").isEmpty()) {
                annotations.put(CONDITIONS, status.path("conditions").toString());
            }
            if (!st.has("currentReplicas")) {
                st.put("currentReplicas", 0);
            }
            if (!st.has("desiredReplicas")) {
                st.put("desiredReplicas", 0);
            }
        }
        if (!annotations.isEmpty()) {
            Json.child(meta, "annotations").setAll(annotations);
        }
        return o;
    }

    static ObjectNode toV2(ObjectNode v1) {
        ObjectNode o = Json.object();
        o.put("apiVersion", V2);
        o.put("kind", "HorizontalPodAutoscaler");
        ObjectNode meta = v1.path("metadata") instanceof ObjectNode m ? m.deepCopy() : Json.object();
        o.set("metadata", meta);
        ObjectNode annotations = meta.path("annotations") instanceof ObjectNode a ? a : Json.object();
        JsonNode spec = v1.path("spec");
        ObjectNode s = o.putObject("spec");
        copy(spec, s, "scaleTargetRef", "minReplicas", "maxReplicas");
        ArrayNode metrics = s.putArray("metrics");
        if (spec.has("targetCPUUtilizationPercentage") && !spec.path("targetCPUUtilizationPercentage").isNull()) {
            metrics.add(cpuTarget(spec.path("targetCPUUtilizationPercentage").asInt()));
        }
        addAll(metrics, annotations.path(METRICS));
        if (metrics.isEmpty()) {
            metrics.add(cpuTarget(DEFAULT_CPU_UTILIZATION));
        }
        JsonNode behavior = parse(annotations.path(BEHAVIOR));
        if (behavior != null && behavior.isObject()) {
            s.set("behavior", behavior);
        }
        JsonNode status = v1.path("status");
        if (status.isObject()) {
            ObjectNode st = o.putObject("status");
            copy(status, st, "observedGeneration", "lastScaleTime", "currentReplicas", "desiredReplicas");
            ArrayNode current = Json.MAPPER.createArrayNode();
            if (status.has("currentCPUUtilizationPercentage") && !status.path("currentCPUUtilizationPercentage")
                    .isNull()) {
                ObjectNode m = current.addObject();
                m.put("type", "Resource");
                ObjectNode r = m.putObject("resource");
                r.put("name", "cpu");
                r.putObject("current").put("averageUtilization", status.path("currentCPUUtilizationPercentage").asInt());
            }
            addAll(current, annotations.path(CURRENT_METRICS));
            if (!current.isEmpty()) {
                st.set("currentMetrics", current);
            }
            JsonNode conditions = parse(annotations.path(CONDITIONS));
            if (conditions != null && conditions.isArray()) {
                st.set("conditions", conditions);
            }
        }
        annotations.remove(List.of(METRICS, BEHAVIOR, CONDITIONS, CURRENT_METRICS));
        if (annotations.isEmpty()) {
            meta.remove("annotations");
        }
        return o;
    }

    private static ObjectNode cpuTarget(int percent) {
        ObjectNode m = Json.object();
        m.put("type", "Resource");
        ObjectNode r = m.putObject("resource");
        r.put("name", "cpu");
        r.putObject("target").put("type", "Utilization").put("averageUtilization", percent);
        return m;
    }

    private static void addAll(ArrayNode to, JsonNode annotation) {
        JsonNode list = parse(annotation);
        if (list != null && list.isArray()) {
            list.forEach(to::add);
        }
    }

    private static JsonNode parse(JsonNode annotation) {
        if (!annotation.isString()) {
            return null;
        }
        try {
            return Json.MAPPER.readTree(annotation.asString());
        } catch (RuntimeException e) {
            return null; // an annotation that is not ours to read
        }
    }

    private static void copy(JsonNode from, ObjectNode to, String... fields) {
        for (String f : fields) {
            if (from.has(f) && !from.get(f).isNull()) {
                to.set(f, from.get(f).deepCopy());
            }
        }
    }
}
