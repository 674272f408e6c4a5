package io.cybernetes.apiserver.internal.metrics;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.FieldSelector;
import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.api.Quantities;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.internal.handlers.ComputedView;
import io.cybernetes.apiserver.internal.handlers.ProtobufBodies;
import io.cybernetes.apiserver.internal.handlers.ResourceLister;
import io.cybernetes.store.ListRequest;
import io.cybernetes.store.Store;
import io.cybernetes.store.StoredObject;
import io.fabric8.kubernetes.api.model.metrics.v1beta1.NodeMetrics;
import io.fabric8.kubernetes.api.model.metrics.v1beta1.PodMetrics;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The resource metrics API, {@code metrics.k8s.io/v1beta1}, as the metrics-server serves it:
 * {@code NodeMetrics} ({@code nodes}) and {@code PodMetrics} ({@code pods}, namespaced), read
 * only, each with the usage the {@link ResourceMetricsScraper} last worked out over its
 * window. Lists take label selectors (and field selectors for pods) and leave out what has no
 * usage yet; a node or pod without one is 404 ({@code nodemetrics.metrics.k8s.io}, {@code
 * podmetrics.metrics.k8s.io}), a pod that does not exist its pod lister's 404 ({@code pod "x" not found}).
 */
@Component
class MetricsApi implements ComputedView {

    static final String GROUP = "metrics.k8s.io";
    static final String VERSION = "v1beta1";

    private final ResourceMetricsScraper scraper;
    private final Store store;
    private final ResourceType nodes;
    private final ResourceType pods;

    MetricsApi(ResourceMetricsScraper scraper, Store store, ResourceRegistry registry) {
        this.scraper = scraper;
        this.store = store;
        this.nodes = registry.byPath("", "v1", "nodes").orElseThrow();
        this.pods = registry.byPath("", "v1", "pods").orElseThrow();
        registry.register(ResourceRegistry.view(GROUP, VERSION, "NodeMetrics", "nodes", "", false, NodeMetrics.class));
        registry.register(ResourceRegistry.view(GROUP, VERSION, "PodMetrics", "pods", "", true, PodMetrics.class));
    }

    @Override
    public boolean serves(ResourceType type) {
        return type.group().equals(GROUP);
    }

    @Override
    public ObjectNode get(ResourceType type, String namespace, String name) {
        if (type.namespaced()) {
            ObjectNode pod = store.get(pods.key(namespace, name)).map(StoredObject::value)
                    .orElseThrow(() -> ApiException.notFound("", "pod", name)); // the metrics-server's pod lister's words
            return podMetrics(pod).orElseThrow(() -> ApiException.notFound(GROUP, "podmetrics", namespace + "/" + name));
        }
        ObjectNode node = store.get(nodes.key(null, name)).map(StoredObject::value)
                .orElseThrow(() -> ApiException.notFound(nodes, name));
        return nodeMetrics(node).orElseThrow(() -> ApiException.notFound(GROUP, "nodemetrics", name));
    }

    @Override
    public List<ObjectNode> list(ResourceType type, String namespace, String labelSelector, String fieldSelector) {
        LabelSelector labels = LabelSelector.parse(labelSelector);
        ResourceType of = type.namespaced() ? pods : nodes;
        FieldSelector fields = FieldSelector.parse(fieldSelector, of);
        List<ObjectNode> out = new ArrayList<>();
        // the cache keeps back what the selectors leave out, rather than copying it out first
        for (StoredObject o : stored(of, namespace, x -> labels.matches(ResourceLister.labels(x)) && fields.matches(x))) {
            (type.namespaced() ? podMetrics(o.value()) : nodeMetrics(o.value())).ifPresent(out::add);
        }
        return out;
    }

    private List<StoredObject> stored(ResourceType type, String namespace,
                                      java.util.function.Predicate<ObjectNode> filter) {
        return store.list(new ListRequest(type.keyPrefix(namespace), ListRequest.Match.ANY, 0, filter, null, 0))
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

}
