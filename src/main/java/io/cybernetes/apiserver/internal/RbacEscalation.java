package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.internal.handlers.WriteOptions;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceType;
import io.cybernetes.auth.RuleResolver;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Optional;

/**
 * Kubernetes' RBAC escalation prevention on writes of roles and bindings: a Role or
 * ClusterRole may only grant what the writer holds (or the writer may {@code escalate});
 * a binding may only bind a role whose rules the writer holds (or the writer may
 * {@code bind} it). Every create and every update is checked — adding a subject to an
 * existing binding grants as much as creating one — except an update that touches
 * nothing but what the garbage collector writes (owner references and finalizers), so
 * that deleting a namespace or an owner never needs rights its controller lacks.
 */
final class RbacEscalation {

    private static final String RBAC = "rbac.authorization.k8s.io";

    private final RuleResolver rules;

    RbacEscalation(RuleResolver rules) {
        this.rules = rules;
    }

    void check(ResourceType type, String namespace, ObjectNode obj, ObjectNode old, WriteOptions opts) {
        if (!type.group().equals(RBAC) || (old != null && onlyGarbageCollectionFieldsChanged(obj, old))) {
            return;
        }
        String ns = namespace == null ? "" : namespace;
        String name = Json.text(obj, "metadata.name");
        Optional<String> refusal = switch (type.kind()) {
            case "Role", "ClusterRole" -> {
                boolean aggregating = hasAggregationRule(obj) || (old != null && hasAggregationRule(old));
                List<PolicyRule> wanted = obj.has("rules") && obj.get("rules").isArray()
                        ? List.of(Json.MAPPER.treeToValue(obj.get("rules"), PolicyRule[].class)) : List.of();
                yield rules.checkRoleEscalation(opts.user(), ns, wanted, aggregating);
            }
            case "RoleBinding", "ClusterRoleBinding" -> rules.checkBindEscalation(opts.user(), ns,
                    Json.text(obj, "roleRef.kind"), Json.text(obj, "roleRef.name"));
            default -> Optional.empty();
        };
        if (refusal.isPresent()) {
            throw ApiException.forbidden(RBAC, type.plural(), name, refusal.get());
        }
    }

    private static boolean hasAggregationRule(ObjectNode role) {
        JsonNode aggregation = role.get("aggregationRule");
        return aggregation != null && !aggregation.isNull();
    }

    /**
     * As Kubernetes' {@code IsOnlyMutatingGCFields}: the objects are equal once owner
     * references and finalizers (and what the server itself sets on every write) are set aside.
     */
    static boolean onlyGarbageCollectionFieldsChanged(ObjectNode obj, ObjectNode old) {
        return withoutGarbageCollectionFields(obj).equals(withoutGarbageCollectionFields(old));
    }

    private static ObjectNode withoutGarbageCollectionFields(ObjectNode o) {
        ObjectNode copy = o.deepCopy();
        if (copy.get("metadata") instanceof ObjectNode meta) {
            meta.remove(List.of("ownerReferences", "finalizers", "resourceVersion", "managedFields"));
        }
        return copy;
    }
}
