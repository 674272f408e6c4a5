package io.cybernetes.apiserver.internal.registry;

import tools.jackson.databind.JsonNode;

import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

import static io.cybernetes.apiserver.internal.registry.TableColumn.AGE;
import static io.cybernetes.apiserver.internal.registry.TableColumn.NAME;
import static io.cybernetes.apiserver.internal.registry.TableColumn.integer;
import static io.cybernetes.apiserver.internal.registry.TableColumn.text;

/** The Table columns of DaemonSets, StatefulSets and ControllerRevisions, as kube-apiserver prints them. */
final class AppsColumns {

    private AppsColumns() {
    }

    static final Map<String, List<TableColumn>> BY_KIND = Map.of(
            "DaemonSet", BuiltInColumns.workload(NAME,
                    integer("Desired", o -> status(o, "desiredNumberScheduled")),
                    integer("Current", o -> status(o, "currentNumberScheduled")),
                    integer("Ready", o -> status(o, "numberReady")),
                    integer("Up-to-date", o -> status(o, "updatedNumberScheduled")),
                    integer("Available", o -> status(o, "numberAvailable")),
                    text("Node Selector", 0, AppsColumns::nodeSelector),
                    AGE),
            "StatefulSet", List.of(NAME,
                    text("Ready", 0, o -> status(o, "readyReplicas") + "/" + o.path("spec").path("replicas").asInt(1)),
                    AGE,
                    text("Containers", 1, o -> BuiltInColumns.containers(o, "name")),
                    text("Images", 1, o -> BuiltInColumns.containers(o, "image"))),
            "ControllerRevision", List.of(NAME,
                    text("Controller", 0, AppsColumns::controller),
                    integer("Revision", o -> o.path("revision").asInt(0)),
                    AGE));

    private static int status(JsonNode o, String field) {
        return o.path("status").path(field).asInt(0);
    }

    /** The template's node selector as labels print ({@code k=v,k2=v2}, sorted), or {@code <none>}. */
    private static String nodeSelector(JsonNode o) {
        Map<String, String> sorted = new TreeMap<>();
        o.path("spec").path("template").path("spec").path("nodeSelector").properties()
                .forEach(e -> sorted.put(e.getKey(), e.getValue().asString("")));
        StringJoiner j = new StringJoiner(",");
        sorted.forEach((k, v) -> j.add(k + "=" + v));
        return BuiltInColumns.orNone(j.toString());
    }

    /** The revision's controller as {@code kind.group/name}, or {@code <none>}. */
    private static String controller(JsonNode o) {
        for (JsonNode r : o.path("metadata").path("ownerReferences")) {
            if (r.path("controller").asBoolean(false)) {
                String apiVersion = r.path("apiVersion").asString("");
                String group = apiVersion.contains("/") ? "." + apiVersion.substring(0, apiVersion.indexOf('/')) : "";
                return r.path("kind").asString("").toLowerCase() + group + "/" + r.path("name").asString("");
            }
        }
        return "<none>";
    }
}
