package io.cybernetes.apiserver.internal;

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
 * {@code bind} it). Unchanged rules or role references are not checked again.
 */
final class RbacEscalation {

    private static final String RBAC = "rbac.authorization.k8s.io";

    private final RuleResolver rules;

    RbacEscalation(RuleResolver rules) {
        this.rules = rules;
    }

    void check(ResourceType type, String namespace, ObjectNode obj, ObjectNode old, WriteOptions opts) {
        if (!type.group().equals(RBAC)) {
            return;
        }
        String ns = namespace == null ? "" : namespace;
        String name = Json.text(obj, "metadata.name");
        Optional<String> refusal = switch (type.kind()) {
            case "Role", "ClusterRole" -> {
                JsonNode aggregation = obj.get("aggregationRule");
                boolean newAggregation = aggregation != null && !aggregation.isNull()
                        && (old == null || !aggregation.equals(old.get("aggregationRule")));
                if (old != null && !newAggregation && obj.path("rules").equals(old.path("rules"))) {
                    yield Optional.empty();
                }
                List<PolicyRule> wanted = obj.has("rules") && obj.get("rules").isArray()
                        ? List.of(Json.MAPPER.treeToValue(obj.get("rules"), PolicyRule[].class)) : List.of();
                yield rules.checkRoleEscalation(opts.user(), ns, wanted, newAggregation);
            }
            case "RoleBinding", "ClusterRoleBinding" -> {
                if (old != null && obj.path("roleRef").equals(old.path("roleRef"))) {
                    yield Optional.empty();
                }
                yield rules.checkBindEscalation(opts.user(), ns, Json.text(obj, "roleRef.kind"),
                        Json.text(obj, "roleRef.name"));
            }
            default -> Optional.empty();
        };
        if (refusal.isPresent()) {
            throw ApiException.forbidden(RBAC, type.plural(), name, refusal.get());
        }
    }
}
