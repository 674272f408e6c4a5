package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.internal.handlers.ResourceService;
import io.cybernetes.admission.ClusterReader;
import io.cybernetes.admission.QuotaStatusWriter;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.store.ListRequest;
import io.cybernetes.store.StorageException;
import io.cybernetes.store.Store;
import io.cybernetes.store.StoredObject;
import org.springframework.stereotype.Component;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Optional;

/**
 * The store as admission plugins may see it: reads from the watch cache (with a database
 * read when the cache has not seen a key yet, so an object created a moment ago is
 * found), and the compare-and-set of a ResourceQuota's usage.
 */
@Component
class AdmissionStoreAccess implements ClusterReader, QuotaStatusWriter {

    private final Store store;
    private final ResourceRegistry registry;
    private final ResourceType quotas;

    AdmissionStoreAccess(Store store, ResourceRegistry registry) {
        this.store = store;
        this.registry = registry;
        this.quotas = registry.byPath("", "v1", "resourcequotas").orElseThrow();
    }

    private ResourceType type(String group, String resource) {
        return registry.byPath(group, "v1", resource).orElseThrow(() -> new IllegalArgumentException(
                "no such resource " + resource + "." + group));
    }

    @Override
    public Optional<ObjectNode> get(String group, String resource, String namespace, String name) {
        String key = type(group, resource).key(namespace, name);
        Optional<StoredObject> o = store.getCached(key);
        if (o.isEmpty()) {
            o = store.get(key);
        }
        return o.map(StoredObject::value);
    }

    @Override
    public List<ObjectNode> list(String group, String resource, String namespace) {
        return list(group, resource, namespace, ListRequest.Match.ANY);
    }

    /** As {@link #list}, but as of the latest commit (for counting what a namespace holds). */
    List<ObjectNode> listLatest(String group, String resource, String namespace) {
        return list(group, resource, namespace, ListRequest.Match.LATEST);
    }

    private List<ObjectNode> list(String group, String resource, String namespace, ListRequest.Match match) {
        ResourceType t = type(group, resource);
        return store.list(new ListRequest(t.keyPrefix(namespace == null || namespace.isEmpty() ? null : namespace),
                match, 0, x -> true, null, 0)).items().stream().map(StoredObject::value).toList();
    }

    @Override
    public ObjectNode compareAndSetUsed(String namespace, String name, String resourceVersion, ObjectNode used) {
        Optional<StoredObject> cur = store.get(quotas.key(namespace, name));
        if (cur.isEmpty()) {
            return null;
        }
        long rv = ResourceService.parseRevision(resourceVersion);
        ObjectNode next = cur.get().value().deepCopy();
        Json.child(next, "status").set("used", used);
        try {
            return store.update(quotas.key(namespace, name), next, rv, null).value();
        } catch (StorageException e) {
            if (e.isConflict() || e.isNotFound()) {
                return null;
            }
            throw ResourceService.translate(e, quotas, name);
        }
    }

    @Override
    public ObjectNode current(String namespace, String name) {
        return store.get(quotas.key(namespace, name)).map(StoredObject::value).orElse(null);
    }
}
