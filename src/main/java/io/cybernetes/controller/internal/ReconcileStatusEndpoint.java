package io.cybernetes.controller.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Samples;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.ControllerManager;
import io.cybernetes.controller.deployment.DeploymentController;
import io.cybernetes.controller.replicaset.ReplicaSetController;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The reconcile status, what the dashboard pulls: per controller its workers, queue,
 * counts, latencies, last error and leadership; per Deployment and ReplicaSet the
 * desired and observed state, conditions, generation lag and the last reconcile's
 * result. Read-only views in the group {@code status.cybernetes.io/v1}, authorized by
 * RBAC like any resource (the {@code view} role reads them), in discovery, and as
 * Tables for {@code kubectl get}.
 */
@RestController
@Tag(name = "status.cybernetes.io/v1 reconcile status",
        description = "What the controllers are doing: per controller, and per Deployment and ReplicaSet")
class ReconcileStatusEndpoint {

    private static final String ROOT = "/apis/" + ResourceRegistry.STATUS + "/v1";
    private static final String API_VERSION = ResourceRegistry.STATUS + "/v1";

    private final ControllerManager manager;
    private final ApiClient client;
    private final Samples samples;

    ReconcileStatusEndpoint(ControllerManager manager, @Qualifier("controllerSamples") Samples samples,
                            ResourceRegistry registry) {
        this.manager = manager;
        registry.register(ResourceRegistry.view("Controller", "controllers", false));
        registry.register(ResourceRegistry.view("DeploymentReconcile", "deploymentreconciles", true));
        registry.register(ResourceRegistry.view("ReplicaSetReconcile", "replicasetreconciles", true));
        this.client = manager.client();
        this.samples = samples;
    }

    // ---- controllers

    @Operation(summary = "Every controller: workers, queue, reconciles, errors, p50/p99, last error, leadership;"
            + " with samples=true also the last 15 minutes of reconciles and queue depth in all, every 5 s")
    @GetMapping(ROOT + "/controllers")
    ResponseEntity<byte[]> controllers(@RequestHeader(value = HttpHeaders.ACCEPT, required = false) String accept,
                                       @RequestParam(required = false) boolean samples) {
        String holder = holder();
        List<ObjectNode> items = new ArrayList<>();
        for (ControllerManager.ControllerState s : manager.states()) {
            items.add(controller(s, holder));
        }
        if (samples && (accept == null || !accept.split(",")[0].contains("as=Table"))) {
            ObjectNode list = list("Controller", items);
            list.set("samples", Json.MAPPER.valueToTree(this.samples.series()));
            return json(list);
        }
        return answer(accept, "Controller", items, CONTROLLER_COLUMNS);
    }

    @Operation(summary = "One controller's reconcile status")
    @GetMapping(ROOT + "/controllers/{name}")
    ResponseEntity<byte[]> controller(@PathVariable String name,
                                      @RequestHeader(value = HttpHeaders.ACCEPT, required = false) String accept) {
        String holder = holder();
        for (ControllerManager.ControllerState s : manager.states()) {
            if (s.status().name().equals(name)) {
                return answer(accept, "Controller", List.of(controller(s, holder)), CONTROLLER_COLUMNS, true);
            }
        }
        throw ApiException.notFound("controllers." + ResourceRegistry.STATUS + " \"" + name + "\" not found");
    }

    private String holder() {
        try {
            return manager.leaseHolder().orElse(null);
        } catch (ApiException e) {
            return null;
        }
    }

    private static ObjectNode controller(ControllerManager.ControllerState state, String holder) {
        Controller.Status s = state.status();
        ObjectNode o = object("Controller", s.name(), null);
        ObjectNode st = o.putObject("status");
        st.put("leader", state.leader());
        if (holder != null) {
            st.put("leaseHolder", holder);
        }
        st.put("running", s.running());
        st.put("workers", s.workers());
        st.put("queueDepth", s.queue().depth());
        st.put("inFlight", s.queue().inFlight());
        st.put("adds", s.queue().adds());
        st.put("retries", s.queue().retries());
        st.put("reconciles", s.reconciles());
        st.put("errors", s.errors());
        st.put("p50Millis", millis(s.p50()));
        st.put("p99Millis", millis(s.p99()));
        st.put("longestRunningMillis", millis(s.queue().longestRunning()));
        if (s.lastError() != null) {
            ObjectNode e = st.putObject("lastError");
            e.put("object", s.lastError().key());
            e.put("message", s.lastError().message());
            e.put("time", s.lastError().at().toString());
        }
        if (s.lastSuccess() != null) {
            st.put("lastSuccessfulSync", s.lastSuccess().toString());
        }
        if (state.since() != null) {
            st.put("leadingSince", state.since().toString());
        }
        return o;
    }

    // ---- Deployments and ReplicaSets

    @Operation(summary = "Reconcile status of the Deployments in every namespace")
    @GetMapping(ROOT + "/deploymentreconciles")
    ResponseEntity<byte[]> allDeployments(@RequestHeader(value = HttpHeaders.ACCEPT, required = false) String accept) {
        return objects(accept, Deployment.class, null);
    }

    @Operation(summary = "Reconcile status of the Deployments in a namespace")
    @GetMapping(ROOT + "/namespaces/{namespace}/deploymentreconciles")
    ResponseEntity<byte[]> deployments(@PathVariable String namespace,
                                       @RequestHeader(value = HttpHeaders.ACCEPT, required = false) String accept) {
        return objects(accept, Deployment.class, namespace);
    }

    @Operation(summary = "Reconcile status of one Deployment: desired vs observed, conditions, generation lag,"
            + " last reconcile")
    @GetMapping(ROOT + "/namespaces/{namespace}/deploymentreconciles/{name}")
    ResponseEntity<byte[]> deployment(@PathVariable String namespace, @PathVariable String name,
                                      @RequestHeader(value = HttpHeaders.ACCEPT, required = false) String accept) {
        return one(accept, Deployment.class, namespace, name);
    }

    @Operation(summary = "Reconcile status of the ReplicaSets in every namespace")
    @GetMapping(ROOT + "/replicasetreconciles")
    ResponseEntity<byte[]> allReplicaSets(@RequestHeader(value = HttpHeaders.ACCEPT, required = false) String accept) {
        return objects(accept, ReplicaSet.class, null);
    }

    @Operation(summary = "Reconcile status of the ReplicaSets in a namespace")
    @GetMapping(ROOT + "/namespaces/{namespace}/replicasetreconciles")
    ResponseEntity<byte[]> replicaSets(@PathVariable String namespace,
                                       @RequestHeader(value = HttpHeaders.ACCEPT, required = false) String accept) {
        return objects(accept, ReplicaSet.class, namespace);
    }

    @Operation(summary = "Reconcile status of one ReplicaSet")
    @GetMapping(ROOT + "/namespaces/{namespace}/replicasetreconciles/{name}")
    ResponseEntity<byte[]> replicaSet(@PathVariable String namespace, @PathVariable String name,
                                      @RequestHeader(value = HttpHeaders.ACCEPT, required = false) String accept) {
        return one(accept, ReplicaSet.class, namespace, name);
    }

    private <T extends HasMetadata> ResponseEntity<byte[]> objects(String accept, Class<T> kind, String namespace) {
        List<T> items = new ArrayList<>(client.list(kind, namespace, null).items());
        items.sort(Comparator.comparing((T o) -> o.getMetadata().getNamespace())
                .thenComparing(o -> o.getMetadata().getName()));
        List<ObjectNode> out = new ArrayList<>();
        for (T o : items) {
            out.add(reconcile(o));
        }
        return answer(accept, viewKind(kind), out, OBJECT_COLUMNS);
    }

    private <T extends HasMetadata> ResponseEntity<byte[]> one(String accept, Class<T> kind, String namespace,
                                                               String name) {
        T o = client.get(kind, namespace, name).orElseThrow(() -> ApiException.notFound(
                (kind == Deployment.class ? "deploymentreconciles." : "replicasetreconciles.") + ResourceRegistry.STATUS
                        + " \"" + name + "\" not found"));
        return answer(accept, viewKind(kind), List.of(reconcile(o)), OBJECT_COLUMNS, true);
    }

    private static String viewKind(Class<?> kind) {
        return kind == Deployment.class ? "DeploymentReconcile" : "ReplicaSetReconcile";
    }

    private ObjectNode reconcile(HasMetadata o) {
        String controller = o instanceof Deployment ? DeploymentController.NAME : ReplicaSetController.NAME;
        ObjectNode view = object(viewKind(o.getClass()), o.getMetadata().getName(), o.getMetadata().getNamespace());
        ObjectNode st = view.putObject("status");
        JsonNode tree = Json.toTree(o);
        JsonNode spec = tree.path("spec");
        JsonNode status = tree.path("status");
        long generation = Objects.requireNonNullElse(o.getMetadata().getGeneration(), 0L);
        long observed = status.path("observedGeneration").asLong(0);
        st.put("desiredReplicas", spec.path("replicas").asInt(1));
        ObjectNode obs = st.putObject("observed");
        for (String f : List.of("replicas", "updatedReplicas", "readyReplicas", "availableReplicas",
                "unavailableReplicas", "fullyLabeledReplicas")) {
            if (status.has(f)) {
                obs.put(f, status.get(f).asInt());
            }
        }
        st.put("generation", generation);
        st.put("observedGeneration", observed);
        st.put("generationLag", Math.max(0, generation - observed));
        st.set("conditions", status.has("conditions") ? status.get("conditions") : Json.MAPPER.createArrayNode());
        if (o instanceof Deployment d && d.getMetadata().getAnnotations() != null) {
            String revision = d.getMetadata().getAnnotations().get(DeploymentController.REVISION);
            if (revision != null) {
                st.put("revision", revision);
            }
        }
        String key = o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
        manager.lastResult(controller, key).ifPresent(r -> {
            ObjectNode last = st.putObject("lastReconcile");
            last.put("controller", controller);
            last.put("result", r.outcome());
            if (!r.message().isEmpty()) {
                last.put("message", r.message());
            }
            last.put("time", r.at().toString());
            last.put("durationMillis", millis(r.took()));
        });
        return view;
    }

    // ---- answers

    private static ObjectNode object(String kind, String name, String namespace) {
        ObjectNode o = Json.object();
        o.put("kind", kind);
        o.put("apiVersion", API_VERSION);
        ObjectNode meta = o.putObject("metadata");
        meta.put("name", name);
        if (namespace != null) {
            meta.put("namespace", namespace);
        }
        return o;
    }

    private static double millis(Duration d) {
        return d == null ? 0 : Math.round(d.toNanos() / 10_000.0) / 100.0;
    }

    /** A column of the Table: its header, type, and where its value is in the object. */
    private record Column(String name, String type, String path) {
    }

    private static final List<Column> CONTROLLER_COLUMNS = List.of(
            new Column("Name", "string", "metadata.name"),
            new Column("Running", "boolean", "status.running"),
            new Column("Workers", "integer", "status.workers"),
            new Column("Depth", "integer", "status.queueDepth"),
            new Column("Reconciles", "integer", "status.reconciles"),
            new Column("Errors", "integer", "status.errors"),
            new Column("P99 ms", "number", "status.p99Millis"),
            new Column("Last Error", "string", "status.lastError.message"));

    private static final List<Column> OBJECT_COLUMNS = List.of(
            new Column("Name", "string", "metadata.name"),
            new Column("Desired", "integer", "status.desiredReplicas"),
            new Column("Available", "integer", "status.observed.availableReplicas"),
            new Column("Generation Lag", "integer", "status.generationLag"),
            new Column("Last Result", "string", "status.lastReconcile.result"),
            new Column("Last Reconcile", "string", "status.lastReconcile.time"));

    private static ResponseEntity<byte[]> answer(String accept, String kind, List<ObjectNode> items,
                                                 List<Column> columns) {
        return answer(accept, kind, items, columns, false);
    }

    /** A list (or its one item), or a Table when the client asks for one as kubectl does. */
    private static ResponseEntity<byte[]> answer(String accept, String kind, List<ObjectNode> items,
                                                 List<Column> columns, boolean single) {
        JsonNode body;
        if (accept != null && accept.split(",")[0].contains("as=Table")) {
            body = table(items, columns);
        } else if (single) {
            body = items.get(0);
        } else {
            body = list(kind, items);
        }
        return json(body);
    }

    private static ObjectNode list(String kind, List<ObjectNode> items) {
        ObjectNode list = Json.object();
        list.put("kind", kind + "List");
        list.put("apiVersion", API_VERSION);
        list.putObject("metadata");
        ArrayNode arr = list.putArray("items");
        items.forEach(arr::add);
        return list;
    }

    private static ResponseEntity<byte[]> json(JsonNode body) {
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(Json.MAPPER.writeValueAsBytes(body));
    }

    private static ObjectNode table(List<ObjectNode> items, List<Column> columns) {
        ObjectNode t = Json.object();
        t.put("kind", "Table");
        t.put("apiVersion", "meta.k8s.io/v1");
        t.putObject("metadata").put("resourceVersion", Long.toString(Instant.now().toEpochMilli()));
        ArrayNode defs = t.putArray("columnDefinitions");
        for (Column c : columns) {
            ObjectNode d = defs.addObject();
            d.put("name", c.name());
            d.put("type", c.type());
            d.put("format", c.name().equals("Name") ? "name" : "");
            d.put("description", "");
            d.put("priority", 0);
        }
        ArrayNode rows = t.putArray("rows");
        for (ObjectNode item : items) {
            ObjectNode row = rows.addObject();
            ArrayNode cells = row.putArray("cells");
            for (Column c : columns) {
                String v = Json.text(item, c.path());
                if (v == null) {
                    cells.add(c.type().equals("string") ? "<none>" : "");
                } else if (c.type().equals("integer")) {
                    cells.add(Long.parseLong(v));
                } else if (c.type().equals("number")) {
                    cells.add(Double.parseDouble(v));
                } else if (c.type().equals("boolean")) {
                    cells.add(Boolean.parseBoolean(v));
                } else {
                    cells.add(v);
                }
            }
            ObjectNode partial = row.putObject("object");
            partial.put("kind", "PartialObjectMetadata");
            partial.put("apiVersion", "meta.k8s.io/v1");
            partial.set("metadata", item.get("metadata"));
        }
        return t;
    }
}
