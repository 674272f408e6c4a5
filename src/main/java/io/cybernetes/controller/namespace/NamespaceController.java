package io.cybernetes.controller.namespace;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.fabric8.kubernetes.api.model.Namespace;

import java.time.Duration;
import java.util.List;

/**
 * Empties a namespace that is being deleted: deletes every namespaced object in it, kind
 * by kind, looks again while some are still going (graceful pods, finalizers), and when
 * nothing is left removes the {@code kubernetes} finalizer, which lets the namespace go.
 */
public final class NamespaceController implements Reconciler {

    public static final String NAME = "namespace";
    static final String FINALIZER = "kubernetes";
    static final Duration RECHECK = Duration.ofSeconds(1);

    private final ApiClient client;
    private final Indexer<Namespace> namespaces;
    private final EventRecorder events;
    private final ResourceRegistry registry;

    public NamespaceController(ApiClient client, Indexer<Namespace> namespaces, ResourceRegistry registry,
                               EventRecorder events) {
        this.client = client;
        this.namespaces = namespaces;
        this.events = events;
        this.registry = registry;
    }

    @Override
    public Result reconcile(Request request) throws Exception {
        Namespace ns = namespaces.get(request.name()).orElse(null);
        if (ns == null || ns.getMetadata().getDeletionTimestamp() == null) {
            return Result.DONE;
        }
        if (ns.getSpec() == null || ns.getSpec().getFinalizers() == null
                || !ns.getSpec().getFinalizers().contains(FINALIZER)) {
            return Result.DONE;
        }
        int remaining = 0;
        // every namespaced kind served now, built-in or defined by a CRD; one version of each resource
        java.util.Set<String> resources = new java.util.HashSet<>();
        for (ResourceType t : registry.all()) {
            if (t.namespaced() && t.stored() && resources.add(t.keyPrefix())) {
                remaining += deleteAll(t, ns.getMetadata().getName());
            }
        }
        if (remaining > 0) {
            return Result.after(RECHECK);
        }
        // a copy: objects from the informer's cache are shared and never changed
        Namespace done = io.cybernetes.api.Json.convert(io.cybernetes.api.Json.toTree(ns), Namespace.class);
        done.getSpec().getFinalizers().remove(FINALIZER);
        try {
            client.finalizeNamespace(done);
        } catch (ApiException e) {
            if (e.code() != 404) {
                throw e;
            }
        }
        return Result.DONE;
    }

    /** Deletes what is left of one kind; returns how many objects are still there (going, or refusing to). */
    private int deleteAll(ResourceType t, String namespace) {
        List<PartialObjectMetadata> items = client.listMetadata(t, namespace).items();
        for (PartialObjectMetadata o : items) {
            if (o.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            try {
                client.delete(t, namespace, o.getMetadata().getName(), "Background");
            } catch (ApiException e) {
                if (e.code() != 404) {
                    events.warning(namespaceRef(namespace), "FailedDelete", "Could not delete " + t.groupResource()
                            + " " + o.getMetadata().getName() + ": " + e.getMessage());
                }
            }
        }
        return items.isEmpty() ? 0 : client.listMetadata(t, namespace).items().size();
    }

    private Namespace namespaceRef(String name) {
        return namespaces.get(name).orElseGet(() -> {
            Namespace n = new Namespace();
            n.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMeta());
            n.getMetadata().setName(name);
            return n;
        });
    }

    /** Every change to a namespace queues it; only terminating ones have work. */
    public ResourceEventHandler<Namespace> handler(Controller controller) {
        return controller.enqueueOnAddAndUpdate();
    }
}
