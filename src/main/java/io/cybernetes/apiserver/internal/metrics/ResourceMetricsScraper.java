package io.cybernetes.apiserver.internal.metrics;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.KubeletApi;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.MetricsProperties;
import io.cybernetes.apiserver.internal.kubelet.KubeletClient;
import io.cybernetes.store.ListRequest;
import io.cybernetes.store.Store;
import io.cybernetes.store.StorageException;
import io.cybernetes.store.StoredObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What the metrics-server does, in this server: every resolution it scrapes the kubelet of
 * every node ({@code /metrics/resource}, through the API server's own kubelet client) and
 * keeps each node's and container's last two readings. Usage is the cpu rate between the
 * two (over their window) and the last working set; a container that restarted in between,
 * or whose counter went back, has none until the next scrape. A node that does not answer
 * within the resolution drops out until it does.
 */
@Component
public class ResourceMetricsScraper implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ResourceMetricsScraper.class);
    private static final int MAX_PARALLEL = 8;

    /** Usage over a window ending at {@code timestamp}: cpu in nanocores, memory in bytes. */
    public record Usage(Instant timestamp, Duration window, long cpuNanoCores, long memoryBytes) {
    }

    /** The last two readings of one node or container (the earlier one null after the first). */
    private record Pair(KubeletReading.Reading previous, KubeletReading.Reading last) {
        Optional<Usage> usage() {
            if (previous == null || !last.at().isAfter(previous.at())
                    || (last.started() != null && !last.started().equals(previous.started()))) {
                return Optional.empty();
            }
            Duration window = Duration.between(previous.at(), last.at());
            double cores = (last.cpuSeconds() - previous.cpuSeconds()) / (window.toNanos() / 1e9);
            if (cores < 0) {
                return Optional.empty();
            }
            return Optional.of(new Usage(last.at(), window, Math.round(cores * 1e9), last.memoryBytes()));
        }
    }

    /** Everything read at the last round: nodes by name, containers by {@code namespace/pod} then name. */
    private record Batch(Map<String, Pair> nodes, Map<String, Map<String, Pair>> pods) {
        static final Batch EMPTY = new Batch(Map.of(), Map.of());
    }

    private final KubeletClient kubelets;
    private final Store store;
    private final ResourceType nodes;
    private final Duration resolution;
    private final Clock clock = Clock.systemUTC();
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private volatile Batch batch = Batch.EMPTY;
    private ScheduledExecutorService loop;
    private ExecutorService scrapers;
    private volatile boolean running;

    ResourceMetricsScraper(KubeletClient kubelets, Store store, ResourceRegistry registry, MetricsProperties props) {
        this.kubelets = kubelets;
        this.store = store;
        this.nodes = registry.byPath("", "v1", "nodes").orElseThrow();
        this.resolution = props.resolution();
    }

    /** How often nodes are scraped. */
    public Duration resolution() {
        return resolution;
    }

    /** The node's usage, if two readings of it are at hand. */
    public Optional<Usage> node(String name) {
        Pair p = batch.nodes().get(name);
        return p == null ? Optional.empty() : p.usage();
    }

    /**
     * The usage of each of the pod's containers, by name; empty when any container the
     * kubelet reported has none yet (metrics-server reports a pod whole or not at all).
     */
    public Optional<Map<String, Usage>> pod(String namespace, String name) {
        Map<String, Pair> containers = batch.pods().get(namespace + "/" + name);
        if (containers == null || containers.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Usage> out = new java.util.TreeMap<>();
        for (Map.Entry<String, Pair> e : containers.entrySet()) {
            Optional<Usage> u = e.getValue().usage();
            if (u.isEmpty()) {
                return Optional.empty();
            }
            out.put(e.getKey(), u.get());
        }
        return Optional.of(out);
    }

    /** One round: every node scraped at once (up to a few at a time), the readings kept. */
    void scrape() {
        List<String> names;
        try {
            names = store.list(new ListRequest(nodes.keyPrefix(), ListRequest.Match.ANY, 0, x -> true, null, 0))
                    .items().stream().map(StoredObject::value).map(n -> n.path("metadata").path("name").asString())
                    .toList();
        } catch (StorageException e) {
            return; // the store is down: the last readings stay until it is back
        }
        Instant started = clock.instant();
        Map<String, Future<KubeletReading>> pending = new HashMap<>();
        for (String node : names) {
            if (inFlight.add(node)) {
                pending.put(node, scrapers.submit(() -> {
                    try {
                        return KubeletReading.parse(kubelets.read(node, KubeletApi.RESOURCE_METRICS, resolution),
                                clock.instant());
                    } finally {
                        inFlight.remove(node);
                    }
                }));
            }
        }
        Batch before = batch;
        Map<String, Pair> nodePairs = new HashMap<>();
        Map<String, Map<String, Pair>> podPairs = new HashMap<>();
        for (Map.Entry<String, Future<KubeletReading>> e : pending.entrySet()) {
            KubeletReading r;
            try {
                long left = resolution.toMillis() - Duration.between(started, clock.instant()).toMillis();
                r = e.getValue().get(Math.max(1, left), TimeUnit.MILLISECONDS);
            } catch (TimeoutException ex) {
                log.debug("metrics: node {} did not answer within {}", e.getKey(), resolution);
                continue;
            } catch (java.util.concurrent.ExecutionException ex) {
                log.debug("metrics: could not scrape node {}: {}", e.getKey(), ex.getCause() instanceof ApiException a
                        ? a.getMessage() : String.valueOf(ex.getCause()));
                continue;
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
            if (r.node() != null) {
                Pair old = before.nodes().get(e.getKey());
                nodePairs.put(e.getKey(), new Pair(old == null ? null : old.last(), r.node()));
            }
            r.containers().forEach((pod, containers) -> {
                Map<String, Pair> oldPod = before.pods().getOrDefault(pod, Map.of());
                Map<String, Pair> pairs = new HashMap<>();
                containers.forEach((c, reading) -> {
                    Pair old = oldPod.get(c);
                    pairs.put(c, new Pair(old == null ? null : old.last(), reading));
                });
                podPairs.put(pod, pairs);
            });
        }
        batch = new Batch(nodePairs, podPairs);
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        scrapers = Executors.newFixedThreadPool(MAX_PARALLEL, r -> {
            Thread t = new Thread(r, "metrics-scrape");
            t.setDaemon(true);
            return t;
        });
        loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "metrics-scraper");
            t.setDaemon(true);
            return t;
        });
        loop.scheduleAtFixedRate(() -> {
            try {
                scrape();
            } catch (RuntimeException e) {
                log.debug("metrics: a round of scrapes failed: {}", e.toString());
            }
        }, 0, resolution.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() {
        running = false;
        if (loop != null) {
            loop.shutdownNow();
            scrapers.shutdownNow();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
