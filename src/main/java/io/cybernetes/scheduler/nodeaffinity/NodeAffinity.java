package io.cybernetes.scheduler.nodeaffinity;

import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTerm;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The pod's {@code nodeSelector} and required node affinity must match the node's labels
 * (terms ORed, a term's requirements ANDed; In, NotIn, Exists, DoesNotExist, Gt, Lt, and
 * {@code metadata.name} through matchFields); the weights of the preferred terms a node
 * matches make its score, normalized to 0..100.
 */
public final class NodeAffinity implements Plugin.Filter, Plugin.Score {

    public static final String NAME = "NodeAffinity";
    public static final String REASON = "node(s) didn't match Pod's node affinity/selector";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
        Map<String, String> labels = labels(node);
        if (pod.getSpec() == null) {
            return Status.SUCCESS;
        }
        Map<String, String> selector = Objects.requireNonNullElse(pod.getSpec().getNodeSelector(), Map.of());
        for (Map.Entry<String, String> e : selector.entrySet()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) {
                return Status.unresolvable(REASON);
            }
        }
        var affinity = pod.getSpec().getAffinity() == null ? null : pod.getSpec().getAffinity().getNodeAffinity();
        var required = affinity == null ? null : affinity.getRequiredDuringSchedulingIgnoredDuringExecution();
        if (required == null || required.getNodeSelectorTerms() == null || required.getNodeSelectorTerms().isEmpty()) {
            return Status.SUCCESS;
        }
        for (NodeSelectorTerm term : required.getNodeSelectorTerms()) {
            if (matches(term, node.name(), labels)) {
                return Status.SUCCESS;
            }
        }
        return Status.unresolvable(REASON);
    }

    @Override
    public long score(CycleState state, Pod pod, NodeInfo node) {
        var affinity = pod.getSpec() == null || pod.getSpec().getAffinity() == null ? null
                : pod.getSpec().getAffinity().getNodeAffinity();
        if (affinity == null || affinity.getPreferredDuringSchedulingIgnoredDuringExecution() == null) {
            return 0;
        }
        long sum = 0;
        for (PreferredSchedulingTerm t : affinity.getPreferredDuringSchedulingIgnoredDuringExecution()) {
            if (t.getPreference() != null && matches(t.getPreference(), node.name(), labels(node))) {
                sum += Objects.requireNonNullElse(t.getWeight(), 0);
            }
        }
        return sum;
    }

    @Override
    public void normalize(CycleState state, Pod pod, long[] scores) {
        long max = java.util.Arrays.stream(scores).max().orElse(0);
        if (max > 0) {
            for (int i = 0; i < scores.length; i++) {
                scores[i] = scores[i] * MAX_SCORE / max;
            }
        }
    }

    private static Map<String, String> labels(NodeInfo node) {
        return Objects.requireNonNullElse(node.node().getMetadata().getLabels(), Map.of());
    }

    /** A term with no requirements matches nothing, as in Kubernetes. */
    static boolean matches(NodeSelectorTerm term, String nodeName, Map<String, String> labels) {
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
