package io.cybernetes.auth.internal;

import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.UserInfo;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;

import java.util.ArrayList;
import java.util.List;

/**
 * Role-based access control: a request is allowed when a rule of a role bound to the
 * user (by name, group or ServiceAccount) matches it. ClusterRoleBindings apply
 * everywhere; RoleBindings only in their namespace, so a list across all namespaces
 * needs a cluster-wide grant. RBAC never denies: it allows or has no opinion.
 */
final class RbacAuthorizer implements Authorizer {

    private final PolicyIndex index;

    RbacAuthorizer(PolicyIndex index) {
        this.index = index;
    }

    @Override
    public Decision authorize(RequestAttributes a) {
        for (PolicyIndex.Bound b : index.clusterBindings(a.user())) {
            if (PolicyRules.allows(index.rules(b.ref(), ""), a)) {
                return Decision.allow("RBAC: allowed by " + b.describe());
            }
        }
        if (a.resourceRequest() && !a.namespace().isEmpty()) {
            for (PolicyIndex.Bound b : index.namespaceBindings(a.user(), a.namespace())) {
                if (PolicyRules.allows(index.rules(b.ref(), a.namespace()), a)) {
                    return Decision.allow("RBAC: allowed by " + b.describe());
                }
            }
        }
        return Decision.noOpinion("");
    }

    /** Every rule that applies to the user in the namespace (cluster-wide ones included). */
    List<PolicyRule> rulesFor(UserInfo user, String namespace) {
        List<PolicyRule> rules = new ArrayList<>();
        for (PolicyIndex.Bound b : index.clusterBindings(user)) {
            rules.addAll(index.rules(b.ref(), ""));
        }
        if (namespace != null && !namespace.isEmpty()) {
            for (PolicyIndex.Bound b : index.namespaceBindings(user, namespace)) {
                rules.addAll(index.rules(b.ref(), namespace));
            }
        }
        return rules;
    }
}
