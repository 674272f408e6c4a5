package io.cybernetes.auth;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;

import java.util.List;
import java.util.Optional;

/**
 * The RBAC rules that hold for a user, and the escalation checks built on them: nobody
 * grants, through a role or a binding, what they do not hold themselves unless they may
 * {@code escalate} (roles) or {@code bind} (bindings).
 */
public interface RuleResolver {

    /** The rules that apply to the user in the namespace: cluster-wide ones, plus the namespace's when not empty. */
    List<PolicyRule> rulesFor(UserInfo user, String namespace);

    /**
     * Empty when the user may write a role with these rules in the namespace ("" for a
     * ClusterRole); otherwise the Forbidden message naming what would be granted.
     */
    Optional<String> checkRoleEscalation(UserInfo user, String namespace, List<PolicyRule> rules,
                                         boolean hasAggregationRule);

    /**
     * Empty when the user may bind the role ({@code kind} Role or ClusterRole) in the
     * namespace ("" for a ClusterRoleBinding); otherwise the Forbidden message.
     */
    Optional<String> checkBindEscalation(UserInfo user, String namespace, String kind, String roleName);
}
