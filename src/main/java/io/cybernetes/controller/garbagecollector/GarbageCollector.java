package io.cybernetes.controller.garbagecollector;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The garbage collector: a graph of every object's ownerReferences, kept by informer
 * events, and a reconcile per object (keyed by uid) that carries out deletion
 * propagation as Kubernetes does. Background: a dependent whose owners are all gone is
 * deleted. Foreground: an owner marked with the {@code foregroundDeletion} finalizer has
 * its dependents deleted first (in foreground themselves) and loses the finalizer once
 * none are left. Orphan: an owner marked with the {@code orphan} finalizer has itself
 * removed from its dependents' ownerReferences, then loses the finalizer. Owners are
 * confirmed absent by asking the server, never by a cache miss alone.
 */
public final class GarbageCollector implements Reconciler {

    public static final String NAME = "garbage-collector";
    static final String FOREGROUND = "foregroundDeletion";
    static final String ORPHAN = "orphan";

    /** What the graph knows of one object. */
    record Node(String uid, ResourceType kind, String namespace, String name,
                List<OwnerReference> owners, List<String> finalizers, boolean deleting) {
    }

    private final ApiClient client;
    private final ResourceRegistry registry;
    private final Map<String, Node> nodes = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> dependents = new ConcurrentHashMap<>();
    /**
     * Owners deleted with Orphan propagation, by uid, and when: a dependent the graph had
     * not seen yet when its owner was orphaned is let go, not deleted, when it shows up.
     */
    private final Map<String, Long> orphanedOwners = new ConcurrentHashMap<>();
    /** How soon a dependent whose owner's kind is not served is looked at again. */
    static final java.time.Duration UNRESOLVED_RECHECK = java.time.Duration.ofSeconds(30);
    static final long REMEMBER_ORPHANED_NANOS = java.util.concurrent.TimeUnit.MINUTES.toNanos(10);

    public GarbageCollector(ApiClient client, ResourceRegistry registry) {
        this.client = client;
        this.registry = registry;
    }

    /**
     * The kinds whose objects take part: every stored kind served now (built-in or
     * defined by a CRD), one version of each resource, as the garbage collector's
     * discovery finds them.
     */
    public List<ResourceType> kinds() {
        Map<String, ResourceType> out = new java.util.LinkedHashMap<>();
        for (ResourceType t : registry.all()) {
            if (t.stored()) {
                out.putIfAbsent(t.keyPrefix(), t);
            }
        }
        return List.copyOf(out.values());
    }

    /**
     * The informer handler for one kind (a metadata informer is enough: only metadata is
     * read): keeps the graph and queues what may need work.
     */
    public <T extends HasMetadata> ResourceEventHandler<T> handler(Controller controller, ResourceType kind) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                observe(obj, kind, controller);
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                observe(newObj, kind, controller);
            }

            @Override
            public void onDelete(T lastKnown, boolean finalStateUnknown) {
                String uid = lastKnown.getMetadata().getUid();
                Node gone = nodes.remove(uid);
                if (gone != null) {
                    for (OwnerReference r : gone.owners()) {
                        Set<String> siblings = dependents.get(r.getUid());
                        if (siblings != null) {
                            siblings.remove(uid);
                        }
                        // an owner waiting for its dependents may be done now
                        controller.enqueue(r.getUid());
                    }
                }
                for (String dependent : dependents.getOrDefault(uid, Set.of())) {
                    controller.enqueue(dependent);
                }
            }
        };
    }

    private void observe(HasMetadata obj, ResourceType kind, Controller controller) {
        String uid = obj.getMetadata().getUid();
        List<OwnerReference> owners = List.copyOf(Objects.requireNonNullElse(obj.getMetadata().getOwnerReferences(),
                List.of()));
        List<String> finalizers = List.copyOf(Objects.requireNonNullElse(obj.getMetadata().getFinalizers(), List.of()));
        Node old = nodes.put(uid, new Node(uid, kind, obj.getMetadata().getNamespace(),
                obj.getMetadata().getName(), owners, finalizers, obj.getMetadata().getDeletionTimestamp() != null));
        if (old != null) {
            for (OwnerReference r : old.owners()) {
                dependents.getOrDefault(r.getUid(), Set.of()).remove(uid);
            }
        }
        for (OwnerReference r : owners) {
            dependents.computeIfAbsent(r.getUid(), k -> ConcurrentHashMap.newKeySet()).add(uid);
        }
        boolean interesting = !owners.isEmpty() || finalizers.contains(FOREGROUND) || finalizers.contains(ORPHAN);
        if (interesting) {
            controller.enqueue(uid);
        }
    }

    /** The request's name is the object's uid. */
    @Override
    public Result reconcile(Request request) {
        Node n = nodes.get(request.name());
        if (n == null) {
            return Result.DONE;
        }
        if (n.deleting() && n.finalizers().contains(ORPHAN)) {
            return orphanDependents(n);
        }
        if (n.deleting() && n.finalizers().contains(FOREGROUND)) {
            return deleteDependentsFirst(n);
        }
        return deleteIfOwnersAreGone(n);
    }

    private Result orphanDependents(Node owner) {
        for (String uid : List.copyOf(dependents.getOrDefault(owner.uid(), Set.of()))) {
            Node d = nodes.get(uid);
            if (d == null) {
                continue;
            }
            List<OwnerReference> rest = new ArrayList<>(d.owners());
            rest.removeIf(r -> r.getUid().equals(owner.uid()));
            patchOwners(d, rest);
        }
        long now = System.nanoTime();
        orphanedOwners.values().removeIf(at -> now - at > REMEMBER_ORPHANED_NANOS);
        orphanedOwners.put(owner.uid(), now);
        return removeFinalizer(owner, ORPHAN);
    }

    private Result deleteDependentsFirst(Node owner) {
        Set<String> remaining = dependents.getOrDefault(owner.uid(), Set.of());
        if (remaining.isEmpty()) {
            return removeFinalizer(owner, FOREGROUND);
        }
        for (String uid : List.copyOf(remaining)) {
            Node d = nodes.get(uid);
            if (d != null && !d.deleting()) {
                delete(d, "Foreground");
            }
        }
        return Result.after(Duration.ofMillis(500));
    }

    private Result deleteIfOwnersAreGone(Node n) {
        if (n.owners().isEmpty() || n.deleting()) {
            return Result.DONE;
        }
        boolean allAlive = n.owners().stream().allMatch(r -> {
            Node known = nodes.get(r.getUid());
            return known != null && !known.deleting();
        });
        if (allAlive) {
            return Result.DONE;
        }
        // Something may be gone: decide on the dependent as the server has it now. The graph's
        // copy may predate an orphaning that already took the owner out of its references.
        Optional<? extends HasMetadata> live = client.getMetadata(n.kind(), n.namespace(), n.name());
        if (live.isEmpty() || !n.uid().equals(live.get().getMetadata().getUid())
                || live.get().getMetadata().getDeletionTimestamp() != null) {
            return Result.DONE;
        }
        List<OwnerReference> owners = Objects.requireNonNullElse(live.get().getMetadata().getOwnerReferences(),
                List.of());
        if (owners.isEmpty()) {
            return Result.DONE;
        }
        List<OwnerReference> alive = new ArrayList<>();
        boolean waitingOwner = false;
        boolean orphaned = false;
        for (OwnerReference r : owners) {
            Node known = nodes.get(r.getUid());
            if (known != null && !known.deleting()) {
                alive.add(r);
                continue;
            }
            if (orphanedOwners.containsKey(r.getUid())) {
                orphaned = true; // its owner went with Orphan propagation: let it go, keep it
                continue;
            }
            // absent from the graph (or going): only the server can say whether it is gone
            Optional<ResourceType> ownerKind = kindOf(r);
            if (ownerKind.isEmpty()) {
                // a kind not served (now): nothing says the owner is gone, so the dependent stays; asked again later
                return Result.after(UNRESOLVED_RECHECK);
            }
            Optional<? extends HasMetadata> owner = lookUp(ownerKind.get(), r, n.namespace());
            if (owner.isPresent()) {
                alive.add(r);
                List<String> f = Objects.requireNonNullElse(owner.get().getMetadata().getFinalizers(), List.of());
                waitingOwner |= owner.get().getMetadata().getDeletionTimestamp() != null && f.contains(FOREGROUND)
                        && Boolean.TRUE.equals(r.getBlockOwnerDeletion());
            }
        }
        if (alive.isEmpty() && !orphaned) {
            delete(n, "Background");
        } else if (alive.size() < owners.size()) {
            patchOwners(n, alive);
        } else if (waitingOwner && alive.size() == 1) {
            delete(n, "Foreground");
        }
        return Result.DONE;
    }

    /**
     * The kind an owner reference names, by its group and kind at whatever version is
     * served (an owner recorded at a version no longer served is still that owner).
     */
    private Optional<ResourceType> kindOf(OwnerReference r) {
        Optional<ResourceType> exact = registry.byKind(r.getApiVersion(), r.getKind());
        if (exact.isPresent()) {
            return exact;
        }
        String apiVersion = Objects.requireNonNullElse(r.getApiVersion(), "");
        String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
        return registry.all().stream().filter(t -> t.stored() && t.group().equals(group)
                && t.kind().equals(r.getKind())).findFirst();
    }

    /** The owner as the server has it, if it is the same object (same uid). */
    private Optional<? extends HasMetadata> lookUp(ResourceType t, OwnerReference r, String dependentNamespace) {
        Optional<? extends HasMetadata> o = client.getMetadata(t, t.namespaced() ? dependentNamespace : null,
                r.getName());
        return o.filter(x -> r.getUid().equals(x.getMetadata().getUid()));
    }

    private void delete(Node n, String propagation) {
        try {
            client.delete(n.kind(), n.namespace(), n.name(), propagation);
        } catch (ApiException e) {
            if (e.code() != 404 && e.code() != 409) {
                throw e;
            }
        }
    }

    private void patchOwners(Node n, List<OwnerReference> owners) {
        try {
            client.patch(n.kind(), n.namespace(), n.name(), "{\"metadata\":{\"uid\":\"" + n.uid()
                    + "\",\"ownerReferences\":" + Json.write(Json.MAPPER.valueToTree(owners)) + "}}");
        } catch (ApiException e) {
            if (e.code() != 404) {
                throw e;
            }
        }
    }

    private Result removeFinalizer(Node owner, String finalizer) {
        List<String> rest = new ArrayList<>(owner.finalizers());
        rest.remove(finalizer);
        try {
            client.patch(owner.kind(), owner.namespace(), owner.name(), "{\"metadata\":{\"uid\":\"" + owner.uid()
                    + "\",\"finalizers\":" + Json.write(Json.MAPPER.valueToTree(rest)) + "}}");
        } catch (ApiException e) {
            if (e.code() != 404) {
                throw e;
            }
        }
        return Result.DONE;
    }
}
