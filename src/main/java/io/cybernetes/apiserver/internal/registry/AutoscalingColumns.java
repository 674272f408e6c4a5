package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.cybernetes.apiserver.internal.registry.TableColumn.AGE;
import static io.cybernetes.apiserver.internal.registry.TableColumn.NAME;
import static io.cybernetes.apiserver.internal.registry.TableColumn.integer;
import static io.cybernetes.apiserver.internal.registry.TableColumn.text;

/**
 * The Table columns of HorizontalPodAutoscalers as kube-apiserver prints them, at either
 * version: the target, each metric's current value against its target (two of them, then
 * how many more), the replica bounds and the replicas now.
 */
final class AutoscalingColumns {

    private static final int SHOWN = 2;

    private AutoscalingColumns() {
    }

    static final Map<String, List<TableColumn>> BY_KIND = Map.of("HorizontalPodAutoscaler", List.of(NAME,
            text("Reference", 0, o -> v2(o).path("spec").path("scaleTargetRef").path("kind").asString("") + "/"
                    + v2(o).path("spec").path("scaleTargetRef").path("name").asString("")),
            text("Targets", 0, o -> targets(v2(o))),
            text("MinPods", 0, o -> o.path("spec").hasNonNull("minReplicas")
                    ? Integer.toString(o.path("spec").path("minReplicas").asInt()) : "<unset>"),
            integer("MaxPods", o -> o.path("spec").path("maxReplicas").asInt(0)),
            integer("Replicas", o -> o.path("status").path("currentReplicas").asInt(0)),
            AGE));

    private static JsonNode v2(JsonNode o) {
        return HorizontalPodAutoscalerConversion.V1.equals(Json.text(o, "apiVersion")) && o instanceof ObjectNode v1
                ? HorizontalPodAutoscalerConversion.toV2(v1) : o;
    }

    static String targets(JsonNode hpa) {
        JsonNode specs = hpa.path("spec").path("metrics");
        JsonNode statuses = hpa.path("status").path("currentMetrics");
        if (!specs.isArray() || specs.isEmpty()) {
            return "<none>";
        }
        List<String> list = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            JsonNode spec = specs.get(i);
            JsonNode status = statuses.path(i);
            String type = spec.path("type").asString("");
            list.add(switch (type) {
                case "Resource", "ContainerResource" -> {
                    String field = type.equals("Resource") ? "resource" : "containerResource";
                    JsonNode source = spec.path(field);
                    JsonNode target = source.path("target");
                    JsonNode current = status.path(field).path("current");
                    String name = source.path("name").asString("");
                    if (target.hasNonNull("averageValue")) {
                        yield name + ": " + current.path("averageValue").asString("<unknown>") + "/"
                                + target.path("averageValue").asString("");
                    }
                    String now = current.hasNonNull("averageUtilization")
                            ? current.path("averageUtilization").asInt() + "%" : "<unknown>";
                    String want = target.hasNonNull("averageUtilization")
                            ? target.path("averageUtilization").asInt() + "%" : "<auto>";
                    yield name + ": " + now + "/" + want;
                }
                case "Pods", "Object", "External" -> {
                    String field = type.toLowerCase();
                    JsonNode target = spec.path(field).path("target");
                    JsonNode current = status.path(field).path("current");
                    String value = target.hasNonNull("averageValue") ? "averageValue" : "value";
                    yield current.path(value).asString("<unknown>") + "/" + target.path(value).asString("")
                            + (value.equals("averageValue") && !type.equals("Pods") ? " (avg)" : "");
                }
                default -> "<unknown type>";
            });
        }
        if (list.size() > SHOWN) {
            return String.join(", ", list.subList(0, SHOWN)) + " + " + (list.size() - SHOWN) + " more...";
        }
        return String.join(", ", list);
    }
}
