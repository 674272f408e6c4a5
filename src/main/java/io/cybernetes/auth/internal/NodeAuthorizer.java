package io.cybernetes.auth.internal;

import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.BootstrapPolicy;
import io.cybernetes.auth.RequestAttributes;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;

import java.util.List;

/**
 * Authorizes nodes ({@code system:node:<name>} in {@code system:nodes}) as Kubernetes'
 * Node authorizer does: a node may write only its own Node and Lease and the status of
 * pods bound to it, and read only the secrets, config maps, volume claims and
 * ServiceAccount tokens those pods use; it reads only its own Node, and only the pods bound
 * to it — listed or watched with the field selector {@code spec.nodeName=<node>}, as the
 * kubelet asks (Kubernetes' authorization with selectors, on by default since 1.32). Other
 * requests are judged by the node rules of the bootstrap policy. Never an opinion about
 * anyone else.
 */
final class NodeAuthorizer implements Authorizer {

    static final String NODE_LEASE_NAMESPACE = "kube-node-lease";

    private final NodeGraph graph;
    private final List<PolicyRule> nodeRules = BootstrapPolicy.nodeRules();

    NodeAuthorizer(NodeGraph graph) {
        this.graph = graph;
    }

    @Override
    public Decision authorize(RequestAttributes a) {
        String node = a.user().nodeName();
        if (node == null || !a.resourceRequest()) {
            return Decision.noOpinion("");
        }
        String group = a.apiGroup();
        if (group.isEmpty()) {
            switch (a.resource()) {
                case "secrets", "configmaps" -> {
                    return readNamespaced(node, a);
                }
                case "persistentvolumeclaims" -> {
                    return readThroughPod(node, a);
                }
                case "serviceaccounts" -> {
                    if (a.subresource().equals("token") && a.verb().equals("create")) {
                        return related(node, a, graph.references(node, "serviceaccounts", a.namespace(), a.name()));
                    }
                    return Decision.noOpinion("");
                }
                case "pods" -> {
                    return pods(node, a);
                }
                case "nodes" -> {
                    return nodes(node, a);
                }
                default -> {
                    // fall through to the node rules
                }
            }
        }
        if (group.equals("coordination.k8s.io") && a.resource().equals("leases")) {
            if (!a.namespace().equals(NODE_LEASE_NAMESPACE)) {
                return Decision.noOpinion("can only access leases in the " + NODE_LEASE_NAMESPACE + " namespace");
            }
            if (!a.verb().equals("create") && !a.name().equals(node)) {
                return Decision.noOpinion("can only access node lease with the same name as the requesting node");
            }
        }
        return byRules(a);
    }

    /**
     * A secret or config map a pod of the node uses: got, or listed and watched by name ({@code metadata.name=x},
     * as the kubelet's watching secret and config map managers ask).
     */
    private Decision readNamespaced(String node, RequestAttributes a) {
        if (!List.of("get", "list", "watch").contains(a.verb())) {
            return Decision.noOpinion("can only read resources of this type");
        }
        if (!a.subresource().isEmpty()) {
            return Decision.noOpinion("cannot read subresource");
        }
        if (a.namespace().isEmpty()) {
            return Decision.noOpinion("can only read namespaced object of this type");
        }
        if (a.name().isEmpty()) {
            return Decision.noOpinion("No Object name found");
        }
        return related(node, a, graph.references(node, a.resource(), a.namespace(), a.name()));
    }

    private Decision readThroughPod(String node, RequestAttributes a) {
        if (!a.verb().equals("get") || a.name().isEmpty()) {
            return Decision.noOpinion("can only get individual resources of this type");
        }
        return related(node, a, graph.references(node, a.resource(), a.namespace(), a.name()));
    }

    private Decision pods(String node, RequestAttributes a) {
        String sub = a.subresource();
        if (sub.isEmpty()) {
            switch (a.verb()) {
                case "get" -> {
                    return a.name().isEmpty() ? Decision.noOpinion("")
                            : related(node, a, node.equals(graph.nodeOf(a.namespace(), a.name())));
                }
                case "list", "watch" -> {
                    // only the pods bound to it, asked for by spec.nodeName, or one of them by name
                    if (a.selectors().requiresField("spec.nodeName", node)) {
                        return Decision.allow("");
                    }
                    if (!a.name().isEmpty()) {
                        return related(node, a, node.equals(graph.nodeOf(a.namespace(), a.name())));
                    }
                    return Decision.noOpinion("can only list/watch pods with spec.nodeName field selector");
                }
                default -> {
                    // create and delete as below
                }
            }
        }
        if (sub.equals("status") || sub.equals("eviction") || (sub.isEmpty() && a.verb().equals("delete"))) {
            if (a.name().isEmpty()) {
                return Decision.noOpinion("can only " + a.verb() + " individual pods");
            }
            return related(node, a, node.equals(graph.nodeOf(a.namespace(), a.name())) && byRules(a).allowed());
        }
        return byRules(a);
    }

    private Decision nodes(String node, RequestAttributes a) {
        if (a.subresource().isEmpty() && List.of("get", "list", "watch").contains(a.verb())) {
            if (a.name().isEmpty()) {
                return Decision.noOpinion("node '" + node + "' cannot read all nodes, only its own Node object");
            }
            if (!a.name().equals(node)) {
                return Decision.noOpinion("node '" + node + "' cannot read '" + a.name()
                        + "', only its own Node object");
            }
            return Decision.allow("");
        }
        boolean writes = switch (a.verb()) {
            case "update", "patch", "delete" -> true;
            default -> false;
        };
        if (writes && !a.name().equals(node)) {
            return Decision.noOpinion("node '" + node + "' cannot modify node '" + a.name() + "'");
        }
        return byRules(a);
    }

    private Decision related(String node, RequestAttributes a, boolean related) {
        return related ? Decision.allow("") : Decision.noOpinion("no relationship found between node '" + node
                + "' and this object");
    }

    private Decision byRules(RequestAttributes a) {
        return PolicyRules.allows(nodeRules, a) ? Decision.allow("") : Decision.noOpinion("");
    }
}
