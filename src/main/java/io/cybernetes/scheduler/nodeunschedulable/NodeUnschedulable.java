package io.cybernetes.scheduler.nodeunschedulable;

import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Status;
import io.cybernetes.api.Tolerations;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.TaintBuilder;

/** A cordoned node ({@code spec.unschedulable}) takes only pods that tolerate {@code node.kubernetes.io/unschedulable}. */
public final class NodeUnschedulable implements Plugin.NodeFilter {

    public static final String NAME = "NodeUnschedulable";
    public static final String REASON = "node(s) were unschedulable";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
        boolean cordoned = node.node().getSpec() != null && Boolean.TRUE.equals(node.node().getSpec().getUnschedulable());
        if (!cordoned) {
            return Status.SUCCESS;
        }
        boolean tolerated = pod.getSpec() != null && Tolerations.toleratedBy(pod.getSpec().getTolerations(),
                new TaintBuilder().withKey("node.kubernetes.io/unschedulable").withEffect("NoSchedule").build());
        return tolerated ? Status.SUCCESS : Status.unresolvable(REASON);
    }
}
