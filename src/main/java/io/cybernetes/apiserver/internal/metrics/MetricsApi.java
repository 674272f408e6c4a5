package io.cybernetes.apiserver.internal.metrics;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.FieldSelector;
import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.api.Quantities;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.internal.handlers.ProtobufBodies;
import io.cybernetes.apiserver.internal.handlers.ResourceLister;
import io.cybernetes.store.ListRequest;
import io.cybernetes.store.Store;
import io.cybernetes.store.StoredObject;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;

/**
 * The resource metrics API, {@code metrics.k8s.io/v1beta1}, as the metrics-server serves it:
 * {@code NodeMetrics} ({@code nodes}) and {@code PodMetrics} ({@code pods}, namespaced), read
 * only, each with the usage the {@link ResourceMetricsScraper} last worked out over its
 * window. Lists take label selectors (and field selectors for pods) and leave out what has no
 * usage yet; a node or pod without one is 404 ({@code nodemetrics.metrics.k8s.io}, {@code
 * podmetrics.metrics.k8s.io}), a pod that does not exist the pod's own 404.
 */
@RestController
@Tag(name = "metrics.k8s.io/v1beta1", description = "Resource usage of nodes and pods (kubectl top)")
class MetricsApi {

    static final String GROUP = "metrics.k8s.io";
    static final String VERSION = "v1beta1";
    private static final String ROOT = "/apis/" + GROUP + "/" + VERSION;

    private final ResourceMetricsScraper scraper;
    private final Store store;
    private final ResourceType nodes;
    private final ResourceType pods;

    MetricsApi(ResourceMetricsScraper scraper, Store store, ResourceRegistry registry) {
        this.scraper = scraper;
        this.store = store;
        this.nodes = registry.byPath("", "v1", "nodes").orElseThrow();
        this.pods = registry.byPath("", "v1", "pods").orElseThrow();
        registry.register(ResourceRegistry.view(GROUP, VERSION, "NodeMetrics", "nodes", "", false));
        registry.register(ResourceRegistry.view(GROUP, VERSION, "PodMetrics", "pods", "", true));
    }

    @Operation(summary = "The usage of every node that has one")
    @GetMapping(ROOT + "/nodes")
    ResponseEntity<byte[]> nodes(@RequestParam(required = false) String labelSelector) {
        LabelSelector selector = LabelSelector.parse(labelSelector);
        ObjectNode list = list("NodeMetricsList");
        for (StoredObject o : stored(nodes, null)) {
            if (selector.matches(ResourceLister.labels(o.value()))) {
                nodeMetrics(o.value()).ifPresent(list.withArray("items")::add);
            }
        }
        return json(list);
    }

    @Operation(summary = "The node's usage")
    @GetMapping(ROOT + "/nodes/{name}")
    ResponseEntity<byte[]> node(@PathVariable String name) {
        ObjectNode node = store.get(nodes.key(null, name)).map(StoredObject::value)
                .orElseThrow(() -> ApiException.notFound(nodes, name));
        return json(nodeMetrics(node).orElseThrow(() -> ApiException.notFound(GROUP, "nodemetrics", name)));
    }

    @Operation(summary = "The usage of every pod that has one")
    @GetMapping(ROOT + "/pods")
    ResponseEntity<byte[]> allPods(@RequestParam(required = false) String labelSelector,
                                   @RequestParam(required = false) String fieldSelector) {
        return podList(null, labelSelector, fieldSelector);
    }

    @Operation(summary = "The usage of every pod of the namespace that has one")
    @GetMapping(ROOT + "/namespaces/{namespace}/pods")
    ResponseEntity<byte[]> pods(@PathVariable String namespace, @RequestParam(required = false) String labelSelector,
                                @RequestParam(required = false) String fieldSelector) {
        return podList(namespace, labelSelector, fieldSelector);
    }

    @Operation(summary = "The pod's usage, container by container")
    @GetMapping(ROOT + "/namespaces/{namespace}/pods/{name}")
    ResponseEntity<byte[]> pod(@PathVariable String namespace, @PathVariable String name) {
        ObjectNode pod = store.get(pods.key(namespace, name)).map(StoredObject::value)
                .orElseThrow(() -> ApiException.notFound("", "pods", namespace + "/" + name));
        return json(podMetrics(pod).orElseThrow(() -> ApiException.notFound(GROUP, "podmetrics",
                namespace + "/" + name)));
    }

    private ResponseEntity<byte[]> podList(String namespace, String labelSelector, String fieldSelector) {
        LabelSelector labels = LabelSelector.parse(labelSelector);
        FieldSelector fields = FieldSelector.parse(fieldSelector, pods);
        ObjectNode list = list("PodMetricsList");
        for (StoredObject o : stored(pods, namespace)) {
            if (labels.matches(ResourceLister.labels(o.value())) && fields.matches(o.value())) {
                podMetrics(o.value()).ifPresent(list.withArray("items")::add);
            }
        }
        return json(list);
    }

    private java.util.List<StoredObject> stored(ResourceType type, String namespace) {
        return store.list(new ListRequest(type.keyPrefix(namespace), ListRequest.Match.ANY, 0, x -> true, null, 0))
                .items();
    }

    private Optional<ObjectNode> nodeMetrics(JsonNode node) {
        String name = node.path("metadata").path("name").asString();
        return scraper.node(name).map(u -> {
            ObjectNode m = item("NodeMetrics", node, false);
            window(m, u);
            usage(m.putObject("usage"), u);
            return m;
        });
    }

    private Optional<ObjectNode> podMetrics(JsonNode pod) {
        JsonNode meta = pod.path("metadata");
        return scraper.pod(meta.path("namespace").asString(), meta.path("name").asString()).map(containers -> {
            ObjectNode m = item("PodMetrics", pod, true);
            ResourceMetricsScraper.Usage first = containers.values().iterator().next();
            window(m, first);
            var items = m.putArray("containers");
            for (Map.Entry<String, ResourceMetricsScraper.Usage> c : containers.entrySet()) {
                ObjectNode container = items.addObject();
                container.put("name", c.getKey());
                usage(container.putObject("usage"), c.getValue());
            }
            return m;
        });
    }

    private static ObjectNode item(String kind, JsonNode of, boolean namespaced) {
        ObjectNode m = Json.object();
        m.put("kind", kind);
        m.put("apiVersion", GROUP + "/" + VERSION);
        ObjectNode meta = m.putObject("metadata");
        meta.put("name", of.path("metadata").path("name").asString());
        if (namespaced) {
            meta.put("namespace", of.path("metadata").path("namespace").asString());
        }
        meta.put("creationTimestamp", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        if (of.path("metadata").path("labels").isObject()) {
            meta.set("labels", of.path("metadata").path("labels").deepCopy());
        }
        return m;
    }

    private static void window(ObjectNode m, ResourceMetricsScraper.Usage u) {
        m.put("timestamp", u.timestamp().truncatedTo(ChronoUnit.SECONDS).toString());
        m.put("window", ProtobufBodies.goDuration(u.window().toNanos()));
    }

    private static void usage(ObjectNode usage, ResourceMetricsScraper.Usage u) {
        usage.put("cpu", cpu(u.cpuNanoCores()));
        usage.put("memory", Quantities.format(BigDecimal.valueOf(u.memoryBytes())));
    }

    /** Nanocores as Go writes a quantity of scale -9: the largest suffix that keeps every digit. */
    static String cpu(long nanos) {
        if (nanos == 0) {
            return "0";
        }
        if (nanos % 1_000_000_000L == 0) {
            return Long.toString(nanos / 1_000_000_000L);
        }
        if (nanos % 1_000_000L == 0) {
            return nanos / 1_000_000L + "m";
        }
        if (nanos % 1_000L == 0) {
            return nanos / 1_000L + "u";
        }
        return nanos + "n";
    }

    private static ObjectNode list(String kind) {
        ObjectNode list = Json.object();
        list.put("kind", kind);
        list.put("apiVersion", GROUP + "/" + VERSION);
        list.putObject("metadata");
        list.putArray("items");
        return list;
    }

    private static ResponseEntity<byte[]> json(JsonNode body) {
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(Json.MAPPER.writeValueAsBytes(body));
    }
}
