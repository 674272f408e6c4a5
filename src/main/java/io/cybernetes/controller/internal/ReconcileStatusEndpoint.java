package io.cybernetes.controller.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Samples;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.ControllerManager;
import io.cybernetes.controller.internal.ReconcileViews.Column;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.swagger.v3.oas.annotations.Hidden;
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
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The reconcile status, what the dashboard pulls: per controller its workers, queue,
 * counts, latencies, last error and leadership; per object of each kind a controller
 * keeps (Deployments, ReplicaSets, ReplicationControllers, Jobs, CronJobs, Services,
 * PodDisruptionBudgets — {@link ReconcileViews}) the desired and observed state,
 * conditions, generation lag and the last reconcile's result. Read-only views in the group {@code status.cybernetes.io/v1}, authorized by
 * RBAC like any resource (the {@code view} role reads them), in discovery, and as
 * Tables for {@code kubectl get}.
 */
@RestController
@Tag(name = "status.cybernetes.io/v1 reconcile status",
        description = "What the controllers are doing: per controller, and per object they keep")
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
        for (ReconcileViews.View v : ReconcileViews.ALL) {
            registry.register(ResourceRegistry.view(v.kind(), v.plural(), true));
        }
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

    // ---- the objects controllers keep

    @Hidden // documented per view by ReconcileStatusDocs
    @GetMapping(ROOT + "/{plural}")
    ResponseEntity<byte[]> everywhere(@PathVariable String plural,
                                      @RequestHeader(value = HttpHeaders.ACCEPT, required = false) String accept) {
        return objects(accept, view(plural), null);
    }

    @Hidden
    @GetMapping(ROOT + "/namespaces/{namespace}/{plural}")
    ResponseEntity<byte[]> inNamespace(@PathVariable String namespace, @PathVariable String plural,
                                       @RequestHeader(value = HttpHeaders.ACCEPT, required = false) String accept) {
        return objects(accept, view(plural), namespace);
    }

    @Hidden
    @GetMapping(ROOT + "/namespaces/{namespace}/{plural}/{name}")
    ResponseEntity<byte[]> one(@PathVariable String namespace, @PathVariable String plural, @PathVariable String name,
                               @RequestHeader(value = HttpHeaders.ACCEPT, required = false) String accept) {
        ReconcileViews.View view = view(plural);
        HasMetadata o = client.get(view.type(), namespace, name)
                .orElseThrow(() -> ApiException.notFound(view.notFound(name)));
        Map<String, List<JsonNode>> related = view.related() == null ? Map.of()
                : view.related().fetch(client, namespace);
        return answer(accept, view.kind(), List.of(reconcile(view, o, related)), view.columns(), true);
    }

    private static ReconcileViews.View view(String plural) {
        return ReconcileViews.byPlural(plural).orElseThrow(() -> ApiException.notFound(
                "the server could not find the requested resource"));
    }

    private ResponseEntity<byte[]> objects(String accept, ReconcileViews.View view, String namespace) {
        List<? extends HasMetadata> items = new ArrayList<>(client.list(view.type(), namespace, null).items());
        Map<String, List<JsonNode>> related = view.related() == null ? Map.of()
                : view.related().fetch(client, namespace);
        List<ObjectNode> out = new ArrayList<>();
        items.stream().sorted(Comparator.comparing((HasMetadata o) -> o.getMetadata().getNamespace())
                .thenComparing(o -> o.getMetadata().getName())).forEach(o -> out.add(reconcile(view, o, related)));
        return answer(accept, view.kind(), out, view.columns());
    }

    /**
     * One object's view: what the kind's describer shows, the generation lag where the kind
     * reports an observed generation, its conditions, and the last result of each of the
     * controllers that reconcile it ({@code lastReconcile} the latest of them).
     */
    private ObjectNode reconcile(ReconcileViews.View view, HasMetadata o, Map<String, List<JsonNode>> related) {
        ObjectNode out = object(view.kind(), o.getMetadata().getName(), o.getMetadata().getNamespace());
        ObjectNode st = out.putObject("status");
        JsonNode tree = Json.toTree(o);
        String key = o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
        view.describer().describe(o, tree, st, related.getOrDefault(key, List.of()));
        if (view.observesGeneration()) {
            long generation = Objects.requireNonNullElse(o.getMetadata().getGeneration(), 0L);
            long observed = tree.path("status").path("observedGeneration").asLong(0);
            st.put("generation", generation);
            st.put("observedGeneration", observed);
            st.put("generationLag", Math.max(0, generation - observed));
        }
        JsonNode conditions = tree.path("status").path("conditions");
        st.set("conditions", conditions.isArray() ? conditions : Json.MAPPER.createArrayNode());
        ObjectNode latest = null;
        Instant latestAt = Instant.MIN;
        ArrayNode all = Json.MAPPER.createArrayNode();
        for (String controller : view.controllers()) {
            Optional<Controller.KeyResult> r = manager.lastResult(controller, key);
            if (r.isEmpty()) {
                continue;
            }
            ObjectNode last = all.addObject();
            last.put("controller", controller);
            last.put("result", r.get().outcome());
            if (!r.get().message().isEmpty()) {
                last.put("message", r.get().message());
            }
            last.put("time", r.get().at().toString());
            last.put("durationMillis", millis(r.get().took()));
            if (latest == null || r.get().at().isAfter(latestAt)) {
                latest = last;
                latestAt = r.get().at();
            }
        }
        if (latest != null) {
            st.set("lastReconcile", latest);
        }
        if (view.controllers().size() > 1) {
            st.set("reconciles", all);
        }
        return out;
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

    private static final List<Column> CONTROLLER_COLUMNS = List.of(
            new Column("Name", "string", "metadata.name"),
            new Column("Running", "boolean", "status.running"),
            new Column("Workers", "integer", "status.workers"),
            new Column("Depth", "integer", "status.queueDepth"),
            new Column("Reconciles", "integer", "status.reconciles"),
            new Column("Errors", "integer", "status.errors"),
            new Column("P99 ms", "number", "status.p99Millis"),
            new Column("Last Error", "string", "status.lastError.message"));

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
