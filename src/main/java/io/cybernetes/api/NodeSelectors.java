package io.cybernetes.api;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Whether a node is one a pod asks for, by Kubernetes' rules: its {@code nodeSelector}
 * and its required node affinity (terms ORed, a term's requirements ANDed; In, NotIn,
 * Exists, DoesNotExist, Gt, Lt, and {@code metadata.name} through matchFields). The
 * scheduler and the DaemonSet controller judge nodes by the same rules.
 */
public final class NodeSelectors {

    private NodeSelectors() {
    }

    /** Whether the node satisfies the pod's node selector and required node affinity. */
    public static boolean required(Pod pod, Node node) {
        return required(pod, node.getMetadata().getName(),
                Objects.requireNonNullElse(node.getMetadata().getLabels(), Map.of()));
    }

    /** {@link #required(Pod, Node)} for a node given by name and labels. */
    public static boolean required(Pod pod, String nodeName, Map<String, String> labels) {
        if (pod.getSpec() == null) {
            return true;
        }
        Map<String, String> selector = Objects.requireNonNullElse(pod.getSpec().getNodeSelector(), Map.of());
        for (Map.Entry<String, String> e : selector.entrySet()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) {
                return false;
            }
        }
        var affinity = pod.getSpec().getAffinity() == null ? null : pod.getSpec().getAffinity().getNodeAffinity();
        var required = affinity == null ? null : affinity.getRequiredDuringSchedulingIgnoredDuringExecution();
        if (required == null || required.getNodeSelectorTerms() == null || required.getNodeSelectorTerms().isEmpty()) {
            return true;
        }
        for (NodeSelectorTerm term : required.getNodeSelectorTerms()) {
            if (matches(term, nodeName, labels)) {
                return true;
            }
        }
        return false;
    }

    /** Whether one term matches; a term with no requirements matches nothing, as in Kubernetes. */
    public static boolean matches(NodeSelectorTerm term, String nodeName, Map<String, String> labels) {
        List<NodeSelectorRequirement> expressions = Objects.requireNonNullElse(term.getMatchExpressions(), List.of());
        List<NodeSelectorRequirement> fields = Objects.requireNonNullElse(term.getMatchFields(), List.of());
        if (expressions.isEmpty() && fields.isEmpty()) {
            return false;
        }
        for (NodeSelectorRequirement r : expressions) {
            if (!matches(r, labels.get(r.getKey()), labels.containsKey(r.getKey()))) {
                return false;
            }
        }
        for (NodeSelectorRequirement r : fields) {
            if (!"metadata.name".equals(r.getKey()) || !matches(r, nodeName, true)) {
                return false;
            }
        }
        return true;
    }

    private static boolean matches(NodeSelectorRequirement r, String value, boolean present) {
        List<String> values = Objects.requireNonNullElse(r.getValues(), List.of());
        return switch (Objects.requireNonNullElse(r.getOperator(), "")) {
            case "In" -> present && values.contains(value);
            case "NotIn" -> !present || !values.contains(value);
            case "Exists" -> present;
            case "DoesNotExist" -> !present;
            case "Gt", "Lt" -> present && values.size() == 1 && compare(value, values.get(0), r.getOperator());
            default -> false;
        };
    }

    private static boolean compare(String value, String bound, String operator) {
        try {
            long v = Long.parseLong(value);
            long b = Long.parseLong(bound);
            return "Gt".equals(operator) ? v > b : v < b;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
