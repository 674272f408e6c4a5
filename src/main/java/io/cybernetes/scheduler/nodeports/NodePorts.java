package io.cybernetes.scheduler.nodeports;

import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;

import java.util.Set;

/**
 * A pod that wants host ports fits only where they are free: the same protocol and port
 * on the same host IP, or on any IP when either side binds 0.0.0.0.
 */
public final class NodePorts implements Plugin.Filter {

    public static final String NAME = "NodePorts";
    public static final String REASON = "node(s) didn't have free ports for the requested pod ports";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
        Set<String> used = node.usedPorts();
        for (String want : NodeInfo.hostPorts(pod)) {
            String[] p = want.split("/");
            for (String taken : used) {
                String[] q = taken.split("/");
                boolean sameIp = p[1].equals(q[1]) || p[1].equals("0.0.0.0") || q[1].equals("0.0.0.0");
                if (p[0].equals(q[0]) && p[2].equals(q[2]) && sameIp) {
                    return Status.unschedulable(REASON);
                }
            }
        }
        return Status.SUCCESS;
    }
}
