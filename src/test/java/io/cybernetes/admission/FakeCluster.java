package io.cybernetes.admission;

import io.cybernetes.api.Json;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/** An in-memory cluster for plugin tests: objects by group/resource/namespace/name, quota writes with versions. */
public final class FakeCluster implements ClusterReader, QuotaStatusWriter {

    private final Map<String, ObjectNode> objects = new LinkedHashMap<>();
    private final AtomicLong revision = new AtomicLong(1);

    public synchronized FakeCluster add(String group, String resource, String json) {
        ObjectNode o = (ObjectNode) Json.MAPPER.readTree(json);
        Json.child(o, "metadata").put("resourceVersion", Long.toString(revision.incrementAndGet()));
        String ns = Json.text(o, "metadata.namespace");
        objects.put(key(group, resource, ns == null ? "" : ns, Json.text(o, "metadata.name")), o);
        return this;
    }

    private static String key(String group, String resource, String ns, String name) {
        return group + "/" + resource + "/" + ns + "/" + name;
    }

    @Override
    public synchronized Optional<ObjectNode> get(String group, String resource, String namespace, String name) {
        return Optional.ofNullable(objects.get(key(group, resource, namespace == null ? "" : namespace, name)))
                .map(ObjectNode::deepCopy);
    }

    @Override
    public synchronized List<ObjectNode> list(String group, String resource, String namespace) {
        List<ObjectNode> out = new ArrayList<>();
        String prefix = group + "/" + resource + "/" + (namespace == null || namespace.isEmpty() ? "" : namespace + "/");
        objects.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                out.add(v.deepCopy());
            }
        });
        return out;
    }

    @Override
    public synchronized ObjectNode compareAndSetUsed(String namespace, String name, String resourceVersion,
                                                     ObjectNode used) {
        ObjectNode q = objects.get(key("", "resourcequotas", namespace, name));
        if (q == null || !resourceVersion.equals(Json.text(q, "metadata.resourceVersion"))) {
            return null;
        }
        Json.child(q, "status").set("used", used);
        Json.child(q, "metadata").put("resourceVersion", Long.toString(revision.incrementAndGet()));
        return q.deepCopy();
    }

    @Override
    public synchronized ObjectNode current(String namespace, String name) {
        return get("", "resourcequotas", namespace, name).orElse(null);
    }

    /** A pod write's attributes, for the tests' rows. */
    public static Attributes pod(Attributes.Operation op, String namespace, String json) {
        ObjectNode o = (ObjectNode) Json.MAPPER.readTree(json);
        return new Attributes(op, "", "v1", "Pod", "pods", "", namespace, Json.text(o, "metadata.name"), o, null,
                new Attributes.User("alice", "", List.of("system:authenticated"), Map.of()), false);
    }
}
