package io.cybernetes.scheduler.tainttoleration;

import io.cybernetes.api.Tolerations;
import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A node with a NoSchedule or NoExecute taint the pod does not tolerate is out (and no
 * preemption changes that); among the rest, fewer untolerated PreferNoSchedule taints
 * score higher.
 */
public final class TaintToleration implements Plugin.NodeFilter, Plugin.Score {

    public static final String NAME = "TaintToleration";

    @Override
    public String name() {
        return NAME;
    }

    private static List<Taint> taints(NodeInfo node) {
        return node.node().getSpec() == null ? List.of()
                : Objects.requireNonNullElse(node.node().getSpec().getTaints(), List.of());
    }

    private static List<Toleration> tolerations(Pod pod) {
        return pod.getSpec() == null ? List.of() : Objects.requireNonNullElse(pod.getSpec().getTolerations(), List.of());
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
        for (Taint taint : taints(node)) {
            boolean hard = "NoSchedule".equals(taint.getEffect()) || "NoExecute".equals(taint.getEffect());
            if (hard && !Tolerations.toleratedBy(tolerations(pod), taint)) {
                return Status.unresolvable("node(s) had untolerated taint {" + taint.getKey() + ": "
                        + Objects.requireNonNullElse(taint.getValue(), "") + "}");
            }
        }
        return Status.SUCCESS;
    }

    /** The number of untolerated PreferNoSchedule taints (normalized below: fewer is better). */
    @Override
    public long score(CycleState state, Pod pod, NodeInfo node) {
        long untolerated = 0;
        for (Taint t : taints(node)) {
            if ("PreferNoSchedule".equals(t.getEffect()) && !Tolerations.toleratedBy(tolerations(pod), t)) {
                untolerated++;
            }
        }
        return untolerated;
    }

    @Override
    public void normalize(CycleState state, Pod pod, long[] scores) {
        long max = java.util.Arrays.stream(scores).max().orElse(0);
        for (int i = 0; i < scores.length; i++) {
            scores[i] = max == 0 ? MAX_SCORE : MAX_SCORE - scores[i] * MAX_SCORE / max;
        }
    }
}
