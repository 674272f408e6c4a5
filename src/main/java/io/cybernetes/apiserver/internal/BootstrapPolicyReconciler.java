package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.internal.handlers.ResourceService;
import io.cybernetes.apiserver.internal.handlers.WriteOptions;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.auth.BootstrapPolicy;
import io.cybernetes.store.StoredObject;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.Optional;

/**
 * Reconciles the bootstrap ClusterRoles and ClusterRoleBindings at start, as
 * kube-apiserver's rbac/bootstrap-roles hook: creates what is missing and adds missing
 * rules, labels, annotations, aggregation selectors and subjects to what exists, never
 * taking anything away, unless the object says {@code autoupdate: "false"}. A binding
 * whose roleRef differs is recreated (roleRef is immutable).
 */
final class BootstrapPolicyReconciler {

    private final ResourceService service;
    private final ResourceType clusterRoles;
    private final ResourceType clusterRoleBindings;

    BootstrapPolicyReconciler(ResourceService service, ResourceRegistry registry) {
        this.service = service;
        this.clusterRoles = registry.byPath("rbac.authorization.k8s.io", "v1", "clusterroles").orElseThrow();
        this.clusterRoleBindings = registry.byPath("rbac.authorization.k8s.io", "v1", "clusterrolebindings").orElseThrow();
    }

    void reconcile() {
        for (var role : BootstrapPolicy.clusterRoles()) {
            ObjectNode wanted = Json.toTree(role);
            reconcile(clusterRoles, wanted, (cur, w) -> {
                addAll(cur, w, "rules");
                if (w.has("aggregationRule") && !cur.has("aggregationRule")) {
                    cur.set("aggregationRule", w.get("aggregationRule"));
                }
            });
        }
        for (var binding : BootstrapPolicy.clusterRoleBindings()) {
            ObjectNode wanted = Json.toTree(binding);
            String name = binding.getMetadata().getName();
            Optional<StoredObject> existing = service.store().get(clusterRoleBindings.key(null, name));
            if (existing.isPresent() && !existing.get().value().path("roleRef").equals(wanted.get("roleRef"))
                    && autoupdate(existing.get().value())) {
                try {
                    service.store().delete(clusterRoleBindings.key(null, name), existing.get().modRevision(), null);
                } catch (RuntimeException e) {
                    // someone else changed it meanwhile; the create below settles it or leaves theirs
                }
            }
            reconcile(clusterRoleBindings, wanted, (cur, w) -> addAll(cur, w, "subjects"));
        }
    }

    private interface Merge {
        void apply(ObjectNode current, ObjectNode wanted);
    }

    private void reconcile(ResourceType type, ObjectNode wanted, Merge merge) {
        String name = Json.text(wanted, "metadata.name");
        try {
            service.create(type, null, wanted.deepCopy(), WriteOptions.server("rbac-bootstrap"));
            return;
        } catch (ApiException e) {
            if (e.code() != 409) {
                throw e;
            }
        }
        service.guaranteedUpdate(type, null, name, 0, WriteOptions.server("rbac-bootstrap"), cur -> {
            if (!autoupdate(cur)) {
                return cur;
            }
            ObjectNode meta = Json.child(cur, "metadata");
            wanted.path("metadata").path("labels").properties().forEach(e -> Json.child(meta, "labels")
                    .putIfAbsent(e.getKey(), e.getValue()));
            wanted.path("metadata").path("annotations").properties().forEach(e -> Json.child(meta, "annotations")
                    .putIfAbsent(e.getKey(), e.getValue()));
            merge.apply(cur, wanted);
            return cur;
        });
    }

    private static boolean autoupdate(ObjectNode obj) {
        return !"false".equals(obj.path("metadata").path("annotations").path(BootstrapPolicy.AUTOUPDATE).asString(""));
    }

    /** Appends the entries of {@code wanted[field]} that {@code current[field]} lacks. */
    private static void addAll(ObjectNode current, ObjectNode wanted, String field) {
        JsonNode want = wanted.get(field);
        if (want == null || !want.isArray()) {
            return;
        }
        ArrayNode have = current.has(field) && current.get(field).isArray() ? (ArrayNode) current.get(field)
                : current.putArray(field);
        for (JsonNode w : want) {
            boolean present = false;
            for (JsonNode h : have) {
                if (h.equals(w)) {
                    present = true;
                    break;
                }
            }
            if (!present) {
                have.add(w);
            }
        }
    }
}
