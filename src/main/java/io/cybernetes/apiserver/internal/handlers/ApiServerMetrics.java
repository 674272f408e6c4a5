package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.PrometheusText;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.store.Store;
import org.springframework.stereotype.Component;

import java.util.Map;
import java.util.TreeMap;

/**
 * What kube-apiserver reports of itself, under its names: requests by verb, resource and
 * code with their latencies, the long-running requests (watches) open, the watch events
 * sent, and the objects stored per resource.
 */
@Component
public class ApiServerMetrics implements PrometheusText.Source {

    private static final String[] REQUEST_LABELS = {"verb", "dry_run", "group", "version", "resource", "subresource",
        "scope", "component", "code"};

    private final PrometheusText.Counters requests = new PrometheusText.Counters(REQUEST_LABELS);
    private final PrometheusText.Histograms durations = new PrometheusText.Histograms(PrometheusText.REQUEST_BUCKETS,
            java.util.Arrays.copyOf(REQUEST_LABELS, REQUEST_LABELS.length - 1));
    private final PrometheusText.Counters watchEvents = new PrometheusText.Counters("group", "version", "kind");
    private final ResourceRegistry registry;
    private final Store store;
    private final WatchThreads watches;

    public ApiServerMetrics(ResourceRegistry registry, Store store, WatchThreads watches) {
        this.registry = registry;
        this.store = store;
        this.watches = watches;
    }

    /**
     * One request done. {@code verb} is Kubernetes' for metrics: LIST, WATCH, APPLY, or the
     * HTTP method; watches are counted, not timed (they last as long as the client likes).
     */
    public void requestDone(RequestAttributes a, String method, boolean apply, boolean dryRun, int code, double seconds) {
        String verb = a == null ? method : switch (a.verb()) {
            case "list" -> "LIST";
            case "watch" -> "WATCH";
            default -> apply ? "APPLY" : method;
        };
        String group = a == null ? "" : a.apiGroup();
        String version = a == null ? "" : a.apiVersion();
        String resource = a == null || !a.resourceRequest() ? "" : a.resource();
        String subresource = a == null ? "" : a.subresource();
        String scope = a == null || !a.resourceRequest() ? "" : !a.name().isEmpty() ? "resource"
                : !a.namespace().isEmpty() ? "namespace" : "cluster";
        String dry = dryRun ? "All" : "";
        requests.inc(verb, dry, group, version, resource, subresource, scope, "apiserver", Integer.toString(code));
        if (!verb.equals("WATCH")) {
            durations.observe(seconds, verb, dry, group, version, resource, subresource, scope, "apiserver");
        }
    }

    public void watchEventSent(ResourceType type) {
        watchEvents.inc(type.group(), type.version(), type.kind());
    }

    @Override
    public void collect(PrometheusText out) {
        requests.writeTo(out, "apiserver_request_total", "[STABLE] Counter of apiserver requests broken out for each"
                + " verb, dry run value, group, version, resource, scope, component, and HTTP response code.");
        durations.writeTo(out, "apiserver_request_duration_seconds", "[STABLE] Response latency distribution in"
                + " seconds for each verb, dry run value, group, version, resource, subresource, scope and component.");
        out.family("apiserver_longrunning_requests", "gauge", "[STABLE] Gauge of all active long-running apiserver"
                + " requests broken out by verb, group, version, resource, scope and component. Not all requests are"
                + " tracked this way.");
        watches.openByType().forEach((type, n) -> out.sample("apiserver_longrunning_requests", n, "component",
                "apiserver", "group", type.group(), "resource", type.plural(), "scope", "", "subresource", "",
                "verb", "WATCH", "version", type.version()));
        watchEvents.writeTo(out, "apiserver_watch_events_total", "[ALPHA] Number of events sent in watch clients");
        out.family("apiserver_storage_objects", "gauge", "[STABLE] Number of stored objects at the time of last check"
                + " split by kind. In case of a fetching error, the value will be -1.");
        Map<String, Long> objects = new TreeMap<>();
        for (ResourceType t : registry.all()) {
            if (t.stored()) {
                objects.put(t.groupResource(), store.count(t.keyPrefix()));
            }
        }
        objects.forEach((resource, n) -> out.sample("apiserver_storage_objects", n, "resource", resource));
    }
}
