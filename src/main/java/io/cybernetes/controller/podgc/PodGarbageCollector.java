package io.cybernetes.controller.podgc;

import io.cybernetes.api.ApiException;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.Keys;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.PodIndexes;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;


/**
 * Deletes pods bound to nodes that no longer exist, with grace period 0 (no node agent is
 * left to end them gracefully), as Kubernetes' pod garbage collector does for orphaned
 * pods: a node missing from the cache is quarantined first (40 s by default, so a node
 * about to register is not taken for a gone one) and then confirmed missing by the API.
 * Start its workers only once the node informer has synced.
 */
public final class PodGarbageCollector implements Reconciler {

    public static final String NAME = "pod-garbage-collector";
    public static final String NODE_NAME_INDEX = PodIndexes.BY_NODE_NAME;

    private final ApiClient client;
    private final Indexer<Pod> pods;
    private final Indexer<Node> nodes;
    private final Duration quarantine;
    private final Clock clock;
    private final Map<String, Instant> missingSince = new ConcurrentHashMap<>();

    public PodGarbageCollector(ApiClient client, Indexer<Pod> pods, Indexer<Node> nodes, Duration quarantine,
                               Clock clock) {
        this.client = client;
        this.pods = pods;
        this.nodes = nodes;
        this.quarantine = quarantine;
        this.clock = clock;
    }

    /** The pods index this collector needs: by the node they are bound to. */
    public static void addIndexes(Indexer<Pod> pods) {
        PodIndexes.addByNodeName(pods);
    }

    @Override
    public Result reconcile(Request request) {
        Pod pod = pods.get(request.key()).orElse(null);
        if (pod == null || pod.getSpec() == null || pod.getSpec().getNodeName() == null
                || pod.getSpec().getNodeName().isEmpty()) {
            return Result.DONE;
        }
        String node = pod.getSpec().getNodeName();
        if (nodes.get(node).isPresent()) {
            missingSince.remove(node);
            return Result.DONE;
        }
        Instant now = clock.instant();
        Instant since = missingSince.computeIfAbsent(node, n -> now);
        Duration left = quarantine.minus(Duration.between(since, now));
        if (left.compareTo(Duration.ZERO) > 0) {
            return Result.after(left);
        }
        if (!quarantine.isZero() && client.get(Node.class, null, node).isPresent()) {
            missingSince.remove(node);
            return Result.DONE;
        }
        try {
            client.delete(Pod.class, request.namespace(), request.name(), null, 0L);
        } catch (ApiException e) {
            if (e.code() != 404) {
                throw e;
            }
        }
        return Result.DONE;
    }

    public ResourceEventHandler<Pod> podHandler(Controller controller) {
        return controller.enqueueOnAddAndUpdate();
    }

    /** A node that goes away sends its pods to be looked at. */
    public ResourceEventHandler<Node> nodeHandler(Controller controller) {
        return new ResourceEventHandler<>() {
            @Override
            public void onDelete(Node lastKnown, boolean finalStateUnknown) {
                for (Pod p : pods.byIndex(NODE_NAME_INDEX, lastKnown.getMetadata().getName())) {
                    controller.enqueue(Keys.of(p));
                }
            }
        };
    }
}
