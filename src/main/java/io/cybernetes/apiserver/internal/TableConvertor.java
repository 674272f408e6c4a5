package io.cybernetes.apiserver.internal;

import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.api.ResourceType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Server-side printing: the {@code meta.k8s.io/v1 Table} that {@code kubectl get}
 * asks for, with the columns kubectl users know for each kind (priority 1 columns
 * appear with {@code -o wide}).
 */
final class TableConvertor {

    /** A column and how to compute its cell. */
    private record Column(String name, String type, String format, int priority, Function<JsonNode, Object> cell) {
    }

    private static final Column NAME = new Column("Name", "string", "name", 0, o -> Json.text(o, "metadata.name"));
    private static final Column AGE = new Column("Age", "string", "", 0, TableConvertor::age);

    private static final Column CREATED_AT = new Column("Created At", "date", "", 0,
            o -> Json.text(o, "metadata.creationTimestamp"));
    private static final List<Column> BINDING = List.of(NAME,
            col("Role", 0, o -> Json.text(o, "roleRef.kind") + "/" + Json.text(o, "roleRef.name")), AGE,
            col("Users", 1, o -> subjects(o, "User")), col("Groups", 1, o -> subjects(o, "Group")),
            col("ServiceAccounts", 1, o -> subjects(o, "ServiceAccount")));

    private static final Map<String, List<Column>> CORE_COLUMNS = Map.of(
            "Pod", List.of(NAME,
                    col("Ready", 0, TableConvertor::podReady),
                    col("Status", 0, TableConvertor::podStatus),
                    new Column("Restarts", "string", "", 0, TableConvertor::podRestarts),
                    AGE,
                    col("IP", 1, o -> orNone(Json.text(o, "status.podIP"))),
                    col("Node", 1, o -> orNone(Json.text(o, "spec.nodeName"))),
                    col("Nominated Node", 1, o -> orNone(Json.text(o, "status.nominatedNodeName"))),
                    col("Readiness Gates", 1, o -> "<none>")),
            "Deployment", List.of(NAME,
                    col("Ready", 0, o -> o.path("status").path("readyReplicas").asInt(0) + "/"
                            + o.path("spec").path("replicas").asInt(1)),
                    new Column("Up-to-date", "integer", "", 0, o -> o.path("status").path("updatedReplicas").asInt(0)),
                    new Column("Available", "integer", "", 0, o -> o.path("status").path("availableReplicas").asInt(0)),
                    AGE,
                    col("Containers", 1, o -> containers(o, "name")),
                    col("Images", 1, o -> containers(o, "image")),
                    col("Selector", 1, TableConvertor::selector)),
            "ReplicaSet", List.of(NAME,
                    new Column("Desired", "integer", "", 0, o -> o.path("spec").path("replicas").asInt(1)),
                    new Column("Current", "integer", "", 0, o -> o.path("status").path("replicas").asInt(0)),
                    new Column("Ready", "integer", "", 0, o -> o.path("status").path("readyReplicas").asInt(0)),
                    AGE,
                    col("Containers", 1, o -> containers(o, "name")),
                    col("Images", 1, o -> containers(o, "image")),
                    col("Selector", 1, TableConvertor::selector)),
            "Node", List.of(NAME,
                    col("Status", 0, TableConvertor::nodeStatus),
                    col("Roles", 0, TableConvertor::nodeRoles),
                    AGE,
                    col("Version", 0, o -> orEmpty(Json.text(o, "status.nodeInfo.kubeletVersion"))),
                    col("Internal-IP", 1, o -> address(o, "InternalIP")),
                    col("External-IP", 1, o -> address(o, "ExternalIP")),
                    col("OS-Image", 1, o -> orUnknown(Json.text(o, "status.nodeInfo.osImage"))),
                    col("Kernel-Version", 1, o -> orUnknown(Json.text(o, "status.nodeInfo.kernelVersion"))),
                    col("Container-Runtime", 1, o -> orUnknown(Json.text(o, "status.nodeInfo.containerRuntimeVersion")))),
            "Namespace", List.of(NAME, col("Status", 0, o -> orEmpty(Json.text(o, "status.phase"))), AGE),
            "ConfigMap", List.of(NAME, new Column("Data", "integer", "", 0,
                    o -> o.path("data").size() + o.path("binaryData").size()), AGE),
            "Secret", List.of(NAME, col("Type", 0, o -> orEmpty(Json.text(o, "type"))),
                    new Column("Data", "integer", "", 0, o -> o.path("data").size()), AGE),
            "ServiceAccount", List.of(NAME, new Column("Secrets", "integer", "", 0, o -> o.path("secrets").size()), AGE),
            "Event", List.of(
                    col("Last Seen", 0, TableConvertor::eventLastSeen),
                    col("Type", 0, o -> orEmpty(Json.text(o, "type"))),
                    col("Reason", 0, o -> orEmpty(Json.text(o, "reason"))),
                    col("Object", 0, o -> Json.text(o, "involvedObject.kind") == null ? ""
                            : Json.text(o, "involvedObject.kind").toLowerCase() + "/" + Json.text(o, "involvedObject.name")),
                    col("Message", 0, o -> orEmpty(Json.text(o, "message"))),
                    new Column("Name", "string", "name", 1, o -> Json.text(o, "metadata.name"))),
            "Lease", List.of(NAME, col("Holder", 0, o -> orEmpty(Json.text(o, "spec.holderIdentity"))), AGE));

    private static final Map<String, List<Column>> COLUMNS = withRbac();

    private static Map<String, List<Column>> withRbac() {
        Map<String, List<Column>> all = new java.util.HashMap<>(CORE_COLUMNS);
        all.put("Role", List.of(NAME, CREATED_AT));
        all.put("ClusterRole", List.of(NAME, CREATED_AT));
        all.put("RoleBinding", BINDING);
        all.put("ClusterRoleBinding", BINDING);
        return Map.copyOf(all);
    }

    private static String subjects(JsonNode o, String kind) {
        List<String> names = new ArrayList<>();
        for (JsonNode s : o.path("subjects")) {
            if (kind.equals(s.path("kind").asString(""))) {
                String ns = s.path("namespace").asString("");
                names.add(kind.equals("ServiceAccount") && !ns.isEmpty() ? ns + "/" + s.path("name").asString("")
                        : s.path("name").asString(""));
            }
        }
        return String.join(", ", names);
    }

    private TableConvertor() {
    }

    private static Column col(String name, int priority, Function<JsonNode, Object> cell) {
        return new Column(name, "string", "", priority, cell);
    }

    /** {@code includeObject}: None, Metadata (the default) or Object. */
    enum Include { NONE, METADATA, OBJECT }

    static ObjectNode table(ResourceType type, List<? extends JsonNode> objects, String resourceVersion,
                            String continueToken, Include include) {
        List<Column> columns = COLUMNS.getOrDefault(type.kind(), List.of(NAME, AGE));
        ObjectNode table = Json.object();
        table.put("kind", "Table");
        table.put("apiVersion", "meta.k8s.io/v1");
        ObjectNode meta = table.putObject("metadata");
        if (resourceVersion != null) {
            meta.put("resourceVersion", resourceVersion);
        }
        if (continueToken != null && !continueToken.isEmpty()) {
            meta.put("continue", continueToken);
        }
        ArrayNode defs = table.putArray("columnDefinitions");
        for (Column c : columns) {
            ObjectNode d = defs.addObject();
            d.put("name", c.name());
            d.put("type", c.type());
            d.put("format", c.format());
            d.put("description", c.name());
            d.put("priority", c.priority());
        }
        ArrayNode rows = table.putArray("rows");
        for (JsonNode o : objects) {
            ObjectNode row = rows.addObject();
            ArrayNode cells = row.putArray("cells");
            for (Column c : columns) {
                Object v = c.cell().apply(o);
                if (v instanceof Integer i) {
                    cells.add(i);
                } else {
                    cells.add(v == null ? "" : v.toString());
                }
            }
            switch (include) {
                case OBJECT -> row.set("object", o);
                case METADATA -> row.set("object", partial(o));
                case NONE -> { }
            }
        }
        return table;
    }

    static ObjectNode partial(JsonNode o) {
        ObjectNode p = Json.object();
        p.put("kind", "PartialObjectMetadata");
        p.put("apiVersion", "meta.k8s.io/v1");
        p.set("metadata", o.get("metadata"));
        return p;
    }

    private static String age(JsonNode o) {
        String ts = Json.text(o, "metadata.creationTimestamp");
        if (ts == null) {
            return "<unknown>";
        }
        return HumanDuration.format(Duration.between(Instant.parse(ts), Instant.now()));
    }

    private static String podReady(JsonNode o) {
        int total = o.path("spec").path("containers").size();
        int ready = 0;
        for (JsonNode cs : o.path("status").path("containerStatuses")) {
            if (cs.path("ready").asBoolean(false)) {
                ready++;
            }
        }
        return ready + "/" + total;
    }

    private static String podStatus(JsonNode o) {
        String reason = Json.text(o, "status.reason");
        if (reason == null || reason.isEmpty()) {
            reason = orEmpty(Json.text(o, "status.phase"));
        }
        for (JsonNode cs : o.path("status").path("containerStatuses")) {
            String waiting = Json.text(cs, "state.waiting.reason");
            String terminated = Json.text(cs, "state.terminated.reason");
            if (waiting != null && !waiting.isEmpty()) {
                reason = waiting;
            } else if (terminated != null && !terminated.isEmpty()) {
                reason = terminated;
            }
        }
        if (Json.text(o, "metadata.deletionTimestamp") != null) {
            reason = "NodeLost".equals(Json.text(o, "status.reason")) ? "Unknown" : "Terminating";
        }
        return reason;
    }

    private static String podRestarts(JsonNode o) {
        int restarts = 0;
        for (JsonNode cs : o.path("status").path("containerStatuses")) {
            restarts += cs.path("restartCount").asInt(0);
        }
        return Integer.toString(restarts);
    }

    private static String containers(JsonNode o, String field) {
        List<String> out = new ArrayList<>();
        for (JsonNode c : o.path("spec").path("template").path("spec").path("containers")) {
            out.add(c.path(field).asString(""));
        }
        return String.join(",", out);
    }

    private static String selector(JsonNode o) {
        String s = LabelSelector.fromObject(o.path("spec").path("selector")).toString();
        return s.isEmpty() ? "<none>" : s;
    }

    private static String nodeStatus(JsonNode o) {
        String status = "Unknown";
        for (JsonNode c : o.path("status").path("conditions")) {
            if ("Ready".equals(c.path("type").asString(""))) {
                status = "True".equals(c.path("status").asString("")) ? "Ready" : "NotReady";
            }
        }
        if (o.path("spec").path("unschedulable").asBoolean(false)) {
            status += ",SchedulingDisabled";
        }
        return status;
    }

    private static String nodeRoles(JsonNode o) {
        List<String> roles = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : o.path("metadata").path("labels").properties()) {
            if (e.getKey().startsWith("node-role.kubernetes.io/")) {
                roles.add(e.getKey().substring("node-role.kubernetes.io/".length()));
            } else if (e.getKey().equals("kubernetes.io/role")) {
                roles.add(e.getValue().asString());
            }
        }
        return roles.isEmpty() ? "<none>" : String.join(",", roles);
    }

    private static String address(JsonNode o, String type) {
        for (JsonNode a : o.path("status").path("addresses")) {
            if (type.equals(a.path("type").asString(""))) {
                return a.path("address").asString("");
            }
        }
        return "<none>";
    }

    private static String eventLastSeen(JsonNode o) {
        String ts = Json.text(o, "lastTimestamp");
        if (ts == null) {
            ts = Json.text(o, "eventTime");
        }
        if (ts == null) {
            ts = Json.text(o, "metadata.creationTimestamp");
        }
        if (ts == null) {
            return "<unknown>";
        }
        try {
            return HumanDuration.format(Duration.between(Instant.parse(ts), Instant.now()));
        } catch (RuntimeException e) {
            return "<unknown>";
        }
    }

    private static String orNone(String s) {
        return s == null || s.isEmpty() ? "<none>" : s;
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }

    private static String orUnknown(String s) {
        return s == null || s.isEmpty() ? "<unknown>" : s;
    }
}
