package io.cybernetes.scheduler.nodename;

import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;

/** A pod that names its node in {@code spec.nodeName} fits that node only. */
public final class NodeName implements Plugin.NodeFilter {

    public static final String NAME = "NodeName";
    public static final String REASON = "node(s) didn't match the requested node name";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
        String wanted = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        return wanted == null || wanted.isEmpty() || wanted.equals(node.name()) ? Status.SUCCESS
                : Status.unresolvable(REASON);
    }
}
