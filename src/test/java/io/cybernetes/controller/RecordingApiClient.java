package io.cybernetes.controller;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Keys;
import io.cybernetes.client.ListerWatcher;
import io.fabric8.kubernetes.api.model.HasMetadata;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fake ApiClient for reconciler tests: writes are recorded as short sentences
 * ("create Pod web-1", "delete Pod web-x") and answered as a server would (names from
 * generateName, uids); creates can be made to fail after a number of successes.
 */
public class RecordingApiClient implements ApiClient {

    public final List<String> actions = new CopyOnWriteArrayList<>();
    public final List<HasMetadata> created = new CopyOnWriteArrayList<>();
    public final List<HasMetadata> statusWrites = new CopyOnWriteArrayList<>();
    public final List<HasMetadata> updates = new CopyOnWriteArrayList<>();
    private final AtomicInteger names = new AtomicInteger();
    private volatile int createsBeforeFailure = Integer.MAX_VALUE;

    public void failCreatesAfter(int successes) {
        createsBeforeFailure = successes;
    }

    /** Patches of objects by these names are refused with 409 Conflict (while the set holds them). */
    public final java.util.Set<String> conflictingPatches = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** What {@code get} finds, by kind, namespace and name ({@link #put}); everything else is 404. */
    private final java.util.Map<String, HasMetadata> objects = new java.util.concurrent.ConcurrentHashMap<>();

    public void put(HasMetadata o) {
        objects.put(o.getClass().getSimpleName() + "/" + o.getMetadata().getNamespace() + "/" + o.getMetadata().getName(),
                o);
    }

    @Override
    public <T extends HasMetadata> Optional<T> get(Class<T> kind, String namespace, String name) {
        return Optional.ofNullable(kind.cast(objects.get(kind.getSimpleName() + "/" + namespace + "/" + name)));
    }

    @Override
    public <T extends HasMetadata> ListerWatcher.Listed<T> list(Class<T> kind, String namespace, String labelSelector,
                                                                String fieldSelector) {
        return new ListerWatcher.Listed<>(new ArrayList<>(), "1");
    }

    @Override
    public <T extends HasMetadata> ListerWatcher.WatchStream<T> watch(Class<T> kind, String namespace, String rv,
                                                                      String fieldSelector) {
        throw new UnsupportedOperationException("no watches here");
    }

    @Override
    public ListerWatcher.Listed<io.fabric8.kubernetes.api.model.PartialObjectMetadata> listMetadata(
            io.cybernetes.api.ResourceType type, String namespace) {
        return new ListerWatcher.Listed<>(new ArrayList<>(), "1");
    }

    @Override
    public ListerWatcher.WatchStream<io.fabric8.kubernetes.api.model.PartialObjectMetadata> watchMetadata(
            io.cybernetes.api.ResourceType type, String namespace, String rv) {
        throw new UnsupportedOperationException("no watches here");
    }

    @Override
    public synchronized <T extends HasMetadata> T create(T object) {
        // the quota refuses the pods a controller makes, not the events it records about them
        if (!(object instanceof io.fabric8.kubernetes.api.model.Event) && createsBeforeFailure-- <= 0) {
            throw ApiException.forbidden("", "pods", "", "exceeded quota: q");
        }
        if (object.getMetadata().getName() == null) {
            object.getMetadata().setName(object.getMetadata().getGenerateName() + names.incrementAndGet());
        }
        object.getMetadata().setUid(UUID.randomUUID().toString());
        actions.add("create " + object.getKind() + " " + object.getMetadata().getName());
        created.add(object);
        return object;
    }

    @Override
    public <T extends HasMetadata> T update(T object) {
        actions.add("update " + object.getKind() + " " + Keys.of(object));
        updates.add(object);
        return object;
    }

    @Override
    public <T extends HasMetadata> T updateStatus(T object) {
        actions.add("updateStatus " + object.getKind() + " " + Keys.of(object));
        statusWrites.add(object);
        return object;
    }

    @Override
    public <T extends HasMetadata> T patch(Class<T> kind, String namespace, String name, String mergePatch) {
        actions.add("patch " + kind.getSimpleName() + " " + name);
        if (conflictingPatches.contains(name)) {
            throw io.cybernetes.api.ApiException.of(409, "Conflict", "Operation cannot be fulfilled on "
                    + kind.getSimpleName().toLowerCase(java.util.Locale.ROOT) + "s \"" + name
                    + "\": the object has been modified; please apply your changes to the latest version and try again");
        }
        try {
            var tree = Json.MAPPER.readTree(mergePatch);
            T patched = Json.MAPPER.treeToValue(tree, kind);
            if (patched.getMetadata() == null) {
                patched.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMeta());
            }
            patched.getMetadata().setName(name);
            patched.getMetadata().setNamespace(namespace);
            return patched;
        } catch (RuntimeException e) {
            throw new IllegalStateException("not a merge patch of " + kind.getSimpleName() + ": " + mergePatch, e);
        }
    }

    @Override
    public List<tools.jackson.databind.node.ObjectNode> listJson(io.cybernetes.api.ResourceType type,
                                                                 String namespace, String labelSelector) {
        return new ArrayList<>();
    }

    /** What {@code getScale} finds, by resource, namespace and name ({@link #putScale}); everything else is 404. */
    private final java.util.Map<String, io.fabric8.kubernetes.api.model.autoscaling.v1.Scale> scales =
            new java.util.concurrent.ConcurrentHashMap<>();

    public void putScale(io.cybernetes.api.ResourceType type, io.fabric8.kubernetes.api.model.autoscaling.v1.Scale s) {
        scales.put(type.plural() + "/" + s.getMetadata().getNamespace() + "/" + s.getMetadata().getName(), s);
    }

    @Override
    public io.fabric8.kubernetes.api.model.autoscaling.v1.Scale getScale(io.cybernetes.api.ResourceType type,
                                                                         String namespace, String name) {
        var s = scales.get(type.plural() + "/" + namespace + "/" + name);
        if (s == null) {
            throw ApiException.notFound(type, name);
        }
        return Json.MAPPER.readValue(Json.MAPPER.writeValueAsBytes(s), io.fabric8.kubernetes.api.model.autoscaling.v1
                .Scale.class);
    }

    @Override
    public io.fabric8.kubernetes.api.model.autoscaling.v1.Scale updateScale(io.cybernetes.api.ResourceType type,
            String namespace, String name, io.fabric8.kubernetes.api.model.autoscaling.v1.Scale scale) {
        actions.add("scale " + type.plural() + " " + name + " " + scale.getSpec().getReplicas());
        scales.put(type.plural() + "/" + namespace + "/" + name, scale);
        return scale;
    }

    @Override
    public void bind(String namespace, String pod, String node) {
        actions.add("bind Pod " + pod + " " + node);
    }

    @Override
    public io.fabric8.kubernetes.api.model.Namespace finalizeNamespace(io.fabric8.kubernetes.api.model.Namespace ns) {
        actions.add("finalize Namespace " + ns.getMetadata().getName() + " " + ns.getSpec().getFinalizers());
        return ns;
    }

    @Override
    public void delete(Class<? extends HasMetadata> kind, String namespace, String name, String propagationPolicy,
                       Long gracePeriodSeconds) {
        actions.add("delete " + kind.getSimpleName() + " " + name + (gracePeriodSeconds == null ? ""
                : " grace " + gracePeriodSeconds) + (propagationPolicy == null ? "" : " " + propagationPolicy));
    }

    @Override
    public Optional<io.fabric8.kubernetes.api.model.PartialObjectMetadata> getMetadata(
            io.cybernetes.api.ResourceType type, String namespace, String name) {
        HasMetadata o = objects.get(type.kind() + "/" + namespace + "/" + name);
        if (o == null) {
            return Optional.empty();
        }
        var partial = new io.fabric8.kubernetes.api.model.PartialObjectMetadata();
        partial.setMetadata(o.getMetadata());
        return Optional.of(partial);
    }

    @Override
    public void patch(io.cybernetes.api.ResourceType type, String namespace, String name, String mergePatch) {
        actions.add("patch " + type.kind() + " " + name);
    }

    @Override
    public void delete(io.cybernetes.api.ResourceType type, String namespace, String name, String propagationPolicy) {
        actions.add("delete " + type.kind() + " " + name + (propagationPolicy == null ? "" : " " + propagationPolicy));
    }

    @Override
    public String requestToken(String namespace, String serviceAccount, java.util.List<String> audiences,
                               long expirationSeconds, String podName, String podUid) {
        throw new UnsupportedOperationException("no tokens here");
    }
}
