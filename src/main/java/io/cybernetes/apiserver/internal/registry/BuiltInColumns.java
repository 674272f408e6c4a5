package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.cybernetes.apiserver.internal.registry.TableColumn.AGE;
import static io.cybernetes.apiserver.internal.registry.TableColumn.CREATED_AT;
import static io.cybernetes.apiserver.internal.registry.TableColumn.NAME;
import static io.cybernetes.apiserver.internal.registry.TableColumn.integer;
import static io.cybernetes.apiserver.internal.registry.TableColumn.text;

/** The Table columns kubectl users know for each built-in kind, as kube-apiserver prints them. */
public final class BuiltInColumns {

    private BuiltInColumns() {
    }

    /** What {@code -o wide} adds for the workloads that own pods through a template: its containers, images, selector. */
    private static final List<TableColumn> WORKLOAD_WIDE = List.of(
            text("Containers", 1, o -> containers(o, "name")),
            text("Images", 1, o -> containers(o, "image")),
            text("Selector", 1, BuiltInColumns::selector));

    /** A workload's columns: its own, then the wide ones. */
    static List<TableColumn> workload(TableColumn... own) {
        List<TableColumn> all = new ArrayList<>(List.of(own));
        all.addAll(WORKLOAD_WIDE);
        return List.copyOf(all);
    }

    private static final List<TableColumn> BINDING = List.of(NAME,
            text("Role", 0, o -> Json.text(o, "roleRef.kind") + "/" + Json.text(o, "roleRef.name")), AGE,
            text("Users", 1, o -> subjects(o, "User")), text("Groups", 1, o -> subjects(o, "Group")),
            text("ServiceAccounts", 1, o -> subjects(o, "ServiceAccount")));

    private static final Map<String, List<TableColumn>> CORE_COLUMNS = Map.of(
            "Pod", List.of(NAME,
                    text("Ready", 0, BuiltInColumns::podReady),
                    text("Status", 0, BuiltInColumns::podStatus),
                    text("Restarts", 0, BuiltInColumns::podRestarts),
                    AGE,
                    text("IP", 1, o -> orNone(Json.text(o, "status.podIP"))),
                    text("Node", 1, o -> orNone(Json.text(o, "spec.nodeName"))),
                    text("Nominated Node", 1, o -> orNone(Json.text(o, "status.nominatedNodeName"))),
                    text("Readiness Gates", 1, o -> "<none>")),
            "Deployment", workload(NAME,
                    text("Ready", 0, o -> o.path("status").path("readyReplicas").asInt(0) + "/"
                            + o.path("spec").path("replicas").asInt(1)),
                    integer("Up-to-date", o -> o.path("status").path("updatedReplicas").asInt(0)),
                    integer("Available", o -> o.path("status").path("availableReplicas").asInt(0)),
                    AGE),
            "ReplicaSet", workload(NAME,
                    integer("Desired", o -> o.path("spec").path("replicas").asInt(1)),
                    integer("Current", o -> o.path("status").path("replicas").asInt(0)),
                    integer("Ready", o -> o.path("status").path("readyReplicas").asInt(0)),
                    AGE),
            "Node", List.of(NAME,
                    text("Status", 0, BuiltInColumns::nodeStatus),
                    text("Roles", 0, BuiltInColumns::nodeRoles),
                    AGE,
                    text("Version", 0, o -> orEmpty(Json.text(o, "status.nodeInfo.kubeletVersion"))),
                    text("Internal-IP", 1, o -> address(o, "InternalIP")),
                    text("External-IP", 1, o -> address(o, "ExternalIP")),
                    text("OS-Image", 1, o -> orUnknown(Json.text(o, "status.nodeInfo.osImage"))),
                    text("Kernel-Version", 1, o -> orUnknown(Json.text(o, "status.nodeInfo.kernelVersion"))),
                    text("Container-Runtime", 1, o -> orUnknown(Json.text(o, "status.nodeInfo.containerRuntimeVersion")))),
            "Namespace", List.of(NAME, text("Status", 0, o -> orEmpty(Json.text(o, "status.phase"))), TableColumn.AGE),
            "ConfigMap", List.of(NAME, new TableColumn("Data", "integer", "", 0,
                    o -> o.path("data").size() + o.path("binaryData").size()), TableColumn.AGE),
            "Secret", List.of(NAME, text("Type", 0, o -> orEmpty(Json.text(o, "type"))),
                    integer("Data", o -> o.path("data").size()), TableColumn.AGE),
            "ServiceAccount", List.of(NAME, integer("Secrets", o -> o.path("secrets").size()), TableColumn.AGE),
            "Event", List.of(
                    text("Last Seen", 0, BuiltInColumns::eventLastSeen),
                    text("Type", 0, o -> orEmpty(Json.text(o, "type"))),
                    text("Reason", 0, o -> orEmpty(Json.text(o, "reason"))),
                    text("Object", 0, o -> Json.text(o, "involvedObject.kind") == null ? ""
                            : Json.text(o, "involvedObject.kind").toLowerCase() + "/" + Json.text(o, "involvedObject.name")),
                    text("Message", 0, o -> orEmpty(Json.text(o, "message"))),
                    new TableColumn("Name", "string", "name", 1, o -> Json.text(o, "metadata.name"))),
            "Lease", List.of(NAME, text("Holder", 0, o -> orEmpty(Json.text(o, "spec.holderIdentity"))), AGE));

    /** The columns of each built-in kind that has more than a name and an age, by kind. */
    public static final Map<String, List<TableColumn>> BY_KIND = withRbac();

    /** An APIService's Available condition as kubectl shows it: its status, and its reason when it is not True. */
    private static String available(JsonNode o) {
        for (JsonNode c : o.path("status").path("conditions")) {
            if ("Available".equals(c.path("type").asString())) {
                String status = c.path("status").asString("");
                return "True".equals(status) ? status : status + " (" + c.path("reason").asString("") + ")";
            }
        }
        return "Unknown";
    }

    private static Map<String, List<TableColumn>> withRbac() {
        Map<String, List<TableColumn>> all = new java.util.HashMap<>(CORE_COLUMNS);
        all.put("Role", List.of(NAME, CREATED_AT));
        all.put("ClusterRole", List.of(NAME, CREATED_AT));
        all.put("RoleBinding", BINDING);
        all.put("ClusterRoleBinding", BINDING);
        all.putAll(ServiceColumns.BY_KIND);
        all.putAll(AppsColumns.BY_KIND);
        all.putAll(StorageColumns.BY_KIND);
        all.putAll(AutoscalingColumns.BY_KIND);
        all.put("APIService", List.of(NAME,
                text("Service", 0, o -> o.path("spec").path("service").isObject()
                        ? o.path("spec").path("service").path("namespace").asString("") + "/"
                        + o.path("spec").path("service").path("name").asString("") : "Local"),
                text("Available", 0, BuiltInColumns::available),
                AGE));
        all.put("FlowSchema", List.of(NAME,
                text("PriorityLevel", 0, o -> o.path("spec").path("priorityLevelConfiguration").path("name")
                        .asString("")),
                integer("MatchingPrecedence", o -> o.path("spec").path("matchingPrecedence").asInt(1000)),
                text("DistinguisherMethod", 0, o -> orNone(Json.text(o, "spec.distinguisherMethod.type"))),
                AGE,
                text("MissingPL", 0, o -> o.path("status").path("conditions").isEmpty() ? "?" : "False")));
        all.put("PriorityLevelConfiguration", List.of(NAME,
                text("Type", 0, o -> o.path("spec").path("type").asString("")),
                text("NominalConcurrencyShares", 0, o -> numberOrNone(o.path("spec").path("limited")
                        .get("nominalConcurrencyShares"))),
                text("Queues", 0, o -> numberOrNone(o.path("spec").path("limited").path("limitResponse")
                        .path("queuing").get("queues"))),
                text("HandSize", 0, o -> numberOrNone(o.path("spec").path("limited").path("limitResponse")
                        .path("queuing").get("handSize"))),
                text("QueueLengthLimit", 0, o -> numberOrNone(o.path("spec").path("limited").path("limitResponse")
                        .path("queuing").get("queueLengthLimit"))),
                AGE));
        all.put("ValidatingAdmissionPolicy", List.of(NAME,
                integer("Validations", o -> o.path("spec").path("validations").size()),
                text("ParamKind", 0, o -> o.path("spec").path("paramKind").isObject()
                        ? Json.text(o, "spec.paramKind.apiVersion") + "/" + Json.text(o, "spec.paramKind.kind")
                        : "<unset>"),
                AGE));
        all.put("ValidatingAdmissionPolicyBinding", List.of(NAME,
                text("PolicyName", 0, o -> o.path("spec").path("policyName").asString("")),
                text("ParamRef", 0, BuiltInColumns::paramRef),
                AGE));
        all.put("CertificateSigningRequest", List.of(NAME, AGE,
                text("SignerName", 0, o -> orNone(Json.text(o, "spec.signerName"))),
                text("Requestor", 0, o -> o.path("spec").path("username").asString("")),
                text("RequestedDuration", 0, o -> o.path("spec").path("expirationSeconds").isNumber()
                        ? HumanDuration.format(java.time.Duration.ofSeconds(o.path("spec").path("expirationSeconds")
                        .asLong())) : "<none>"),
                text("Condition", 0, CertificateSigningRequestStrategy::condition)));
        all.put("Job", workload(NAME,
                text("Status", 0, BuiltInColumns::jobStatus),
                text("Completions", 0, BuiltInColumns::jobCompletions),
                text("Duration", 0, BuiltInColumns::jobDuration),
                AGE));
        all.put("ReplicationController", workload(NAME,
                integer("Desired", o -> o.path("spec").path("replicas").asInt(1)),
                integer("Current", o -> o.path("status").path("replicas").asInt(0)),
                integer("Ready", o -> o.path("status").path("readyReplicas").asInt(0)),
                AGE));
        all.put("PodDisruptionBudget", List.of(NAME,
                text("Min Available", 0, o -> orNa(o.path("spec").path("minAvailable"))),
                text("Max Unavailable", 0, o -> orNa(o.path("spec").path("maxUnavailable"))),
                integer("Allowed Disruptions", o -> o.path("status").path("disruptionsAllowed").asInt(0)),
                AGE));
        all.put("CronJob", workload(NAME,
                text("Schedule", 0, o -> o.path("spec").path("schedule").asString("")),
                text("Timezone", 0, o -> orNone(Json.text(o, "spec.timeZone"))),
                text("Suspend", 0, o -> Boolean.toString(o.path("spec").path("suspend").asBoolean(false)).replace(
                        "true", "True").replace("false", "False")),
                integer("Active", o -> o.path("status").path("active").size()),
                text("Last Schedule", 0, BuiltInColumns::lastSchedule),
                AGE));
        return Map.copyOf(all);
    }

    /** A binding's parameter as kubectl shows it: namespace/name, * for a namespace not named, or the selector. */
    private static String paramRef(JsonNode o) {
        JsonNode ref = o.path("spec").path("paramRef");
        if (!ref.isObject()) {
            return "<unset>";
        }
        String name = ref.path("name").asString("");
        if (!name.isEmpty()) {
            String namespace = ref.path("namespace").asString("");
            return (namespace.isEmpty() ? "*" : namespace) + "/" + name;
        }
        return ref.path("selector").isObject() ? io.cybernetes.api.LabelSelector.fromObject(ref.get("selector"))
                .toString() : "<unset>";
    }

    private static String numberOrNone(JsonNode v) {
        return v == null || v.isNull() ? "<none>" : v.asString(v.toString());
    }

    private static String orNa(JsonNode v) {
        return v.isMissingNode() || v.isNull() ? "N/A" : v.asString();
    }

    private static String lastSchedule(JsonNode o) {
        String t = Json.text(o, "status.lastScheduleTime");
        return t == null ? "<none>" : HumanDuration.format(Duration.between(Instant.parse(t), Instant.now()));
    }

    /** A Job's state as kubectl shows it: its ending, else Terminating, FailureTarget, Suspended or Running. */
    private static String jobStatus(JsonNode o) {
        List<String> shown = new ArrayList<>();
        for (JsonNode c : o.path("status").path("conditions")) {
            if ("True".equals(c.path("status").asString(""))) {
                shown.add(c.path("type").asString(""));
            }
        }
        for (String t : List.of("Complete", "Failed")) {
            if (shown.contains(t)) {
                return t;
            }
        }
        if (o.path("metadata").hasNonNull("deletionTimestamp")) {
            return "Terminating";
        }
        for (String t : List.of("FailureTarget", "SuccessCriteriaMet", "Suspended")) {
            if (shown.contains(t)) {
                return t;
            }
        }
        return "Running";
    }

    private static String jobCompletions(JsonNode o) {
        int succeeded = o.path("status").path("succeeded").asInt(0);
        JsonNode spec = o.path("spec");
        if (spec.hasNonNull("completions")) {
            return succeeded + "/" + spec.path("completions").asInt();
        }
        int parallelism = spec.path("parallelism").asInt(0);
        return parallelism > 1 ? succeeded + "/1 of " + parallelism : succeeded + "/1";
    }

    private static String jobDuration(JsonNode o) {
        String start = Json.text(o, "status.startTime");
        if (start == null) {
            return "";
        }
        String end = Json.text(o, "status.completionTime");
        Instant to = end == null ? Instant.now() : Instant.parse(end);
        return HumanDuration.format(Duration.between(Instant.parse(start), to));
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

    /** The spec that holds the pod template: the object's own, or a CronJob's Job template's. */
    private static JsonNode templated(JsonNode o) {
        JsonNode spec = o.path("spec");
        return spec.has("jobTemplate") ? spec.path("jobTemplate").path("spec") : spec;
    }

    static String containers(JsonNode o, String field) {
        List<String> out = new ArrayList<>();
        for (JsonNode c : templated(o).path("template").path("spec").path("containers")) {
            out.add(c.path(field).asString(""));
        }
        return String.join(",", out);
    }

    private static String selector(JsonNode o) {
        String s = LabelSelector.fromSpecSelector(templated(o).path("selector")).toString();
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

    static String orNone(String s) {
        return s == null || s.isEmpty() ? "<none>" : s;
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }

    private static String orUnknown(String s) {
        return s == null || s.isEmpty() ? "<unknown>" : s;
    }
}
