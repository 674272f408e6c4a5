package io.cybernetes.scheduler.nodeports;

import io.cybernetes.scheduler.framework.ClusterEvent;
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
public final class NodePorts implements Plugin.Filter, Plugin.EnqueueExtensions {

    public static final String NAME = "NodePorts";
    public static final String REASON = "node(s) didn't have free ports for the requested pod ports";

    @Override
    public String name() {
        return NAME;
    }

    /** Any node added or changed may have the ports free; a pod deleted helps when it held a port the pod wants. */
    private final java.util.Map<ClusterEvent, QueueingHint> events = java.util.Map.of(
            ClusterEvent.NODE_ADD, QueueingHint.ALWAYS,
            ClusterEvent.NODE_UPDATE, QueueingHint.ALWAYS,
            ClusterEvent.ASSIGNED_POD_DELETE, (pod, before, after) ->
                    conflict(NodeInfo.hostPorts(pod), NodeInfo.hostPorts((Pod) before)));

    @Override
    public java.util.Map<ClusterEvent, QueueingHint> eventsToRegister() {
        return events;
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
        return conflict(NodeInfo.hostPorts(pod), node.usedPorts()) ? Status.unschedulable(REASON) : Status.SUCCESS;
    }

    /** Whether a wanted port (protocol/ip/port) is among the taken ones. */
    private static boolean conflict(Set<String> wanted, Set<String> used) {
        for (String want : wanted) {
            String[] p = want.split("/");
            for (String taken : used) {
                String[] q = taken.split("/");
                boolean sameIp = p[1].equals(q[1]) || p[1].equals("0.0.0.0") || q[1].equals("0.0.0.0");
                if (p[0].equals(q[0]) && p[2].equals(q[2]) && sameIp) {
                    return true;
                }
            }
        }
        return false;
    }
}
