package io.cybernetes.scheduler.nodeaffinity;

import io.cybernetes.api.NodeSelectors;
import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTerm;

import java.util.Map;
import java.util.Objects;

/**
 * The pod's {@code nodeSelector} and required node affinity must match the node's labels
 * (terms ORed, a term's requirements ANDed; In, NotIn, Exists, DoesNotExist, Gt, Lt, and
 * {@code metadata.name} through matchFields); the weights of the preferred terms a node
 * matches make its score, normalized to 0..100.
 */
public final class NodeAffinity implements Plugin.NodeFilter, Plugin.Score {

    public static final String NAME = "NodeAffinity";
    public static final String REASON = "node(s) didn't match Pod's node affinity/selector";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
        return NodeSelectors.required(pod, node.name(), labels(node)) ? Status.SUCCESS : Status.unresolvable(REASON);
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
            if (t.getPreference() != null && NodeSelectors.matches(t.getPreference(), node.name(), labels(node))) {
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
}
